import { hslToRgb, type Lab, parseHex, type Rgb, rgbToLab } from '../../adapters/media/colors.ts';

/**
 * Colour arithmetic for Brand DNA: parsing (rgb(), hsl(), CSS names, CMYK; hex with parseHex of
 * adapters/media/colors.ts), CIELAB and the CIEDE2000 difference (the perceptual distance every
 * palette decision here uses), and the neutral/chromatic split. Pure functions.
 */
export type { Lab };

const clamp255 = (v: number) => Math.max(0, Math.min(255, Math.round(v)));

/** `#rrggbb`, lower case. */
export const toHex = ([r, g, b]: Rgb): string =>
  `#${[r, g, b].map((v) => clamp255(v).toString(16).padStart(2, '0')).join('')}`;

export const hexToLab = (hex: string): Lab => {
  const rgb = parseHex(hex);
  if (!rgb) throw new RangeError(`not a hex colour: ${hex}`);
  return rgbToLab(...rgb);
};

export { rgbToLab };

const fromLinear = (v: number) => 255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055);
const finv = (t: number) => (t ** 3 > 216 / 24389 ? t ** 3 : (116 * t - 16) / (24389 / 27));

/** CIELAB (D65) → sRGB, clipped to the gamut. */
export function labToRgb([L, a, b]: Lab): Rgb {
  const fy = (L + 16) / 116;
  const fx = fy + a / 500;
  const fz = fy - b / 200;
  const x = finv(fx) * 0.95047;
  const y = L > 8 ? fy ** 3 : L / (24389 / 27);
  const z = finv(fz) * 1.08883;
  const R = 3.2404542 * x - 1.5371385 * y - 0.4985314 * z;
  const G = -0.969266 * x + 1.8760108 * y + 0.041556 * z;
  const B = 0.0556434 * x - 0.2040259 * y + 1.0572252 * z;
  return [clamp255(fromLinear(R)), clamp255(fromLinear(G)), clamp255(fromLinear(B))];
}

const deg = (rad: number) => (rad * 180) / Math.PI;
const rad = (d: number) => (d * Math.PI) / 180;

/** CIEDE2000 colour difference (Sharma, Wu, Dalal 2005). About 1 is just noticeable; 10 is "another colour". */
export function deltaE2000(l1: Lab, l2: Lab): number {
  const [L1, a1, b1] = l1;
  const [L2, a2, b2] = l2;
  const C1 = Math.hypot(a1, b1);
  const C2 = Math.hypot(a2, b2);
  const Cm = (C1 + C2) / 2;
  const G = 0.5 * (1 - Math.sqrt(Cm ** 7 / (Cm ** 7 + 25 ** 7)));
  const a1p = (1 + G) * a1;
  const a2p = (1 + G) * a2;
  const C1p = Math.hypot(a1p, b1);
  const C2p = Math.hypot(a2p, b2);
  const h = (a: number, b: number) => {
    if (a === 0 && b === 0) return 0;
    const v = deg(Math.atan2(b, a));
    return v < 0 ? v + 360 : v;
  };
  const h1p = h(a1p, b1);
  const h2p = h(a2p, b2);
  const dLp = L2 - L1;
  const dCp = C2p - C1p;
  let dhp = 0;
  if (C1p * C2p !== 0) {
    dhp = h2p - h1p;
    if (dhp > 180) dhp -= 360;
    else if (dhp < -180) dhp += 360;
  }
  const dHp = 2 * Math.sqrt(C1p * C2p) * Math.sin(rad(dhp / 2));
  const Lpm = (L1 + L2) / 2;
  const Cpm = (C1p + C2p) / 2;
  let hpm = h1p + h2p;
  if (C1p * C2p !== 0) {
    if (Math.abs(h1p - h2p) <= 180) hpm = (h1p + h2p) / 2;
    else hpm = h1p + h2p < 360 ? (h1p + h2p + 360) / 2 : (h1p + h2p - 360) / 2;
  }
  const T =
    1 -
    0.17 * Math.cos(rad(hpm - 30)) +
    0.24 * Math.cos(rad(2 * hpm)) +
    0.32 * Math.cos(rad(3 * hpm + 6)) -
    0.2 * Math.cos(rad(4 * hpm - 63));
  const dTheta = 30 * Math.exp(-(((hpm - 275) / 25) ** 2));
  const Rc = 2 * Math.sqrt(Cpm ** 7 / (Cpm ** 7 + 25 ** 7));
  const Sl = 1 + (0.015 * (Lpm - 50) ** 2) / Math.sqrt(20 + (Lpm - 50) ** 2);
  const Sc = 1 + 0.045 * Cpm;
  const Sh = 1 + 0.015 * Cpm * T;
  const Rt = -Math.sin(rad(2 * dTheta)) * Rc;
  return Math.sqrt((dLp / Sl) ** 2 + (dCp / Sc) ** 2 + (dHp / Sh) ** 2 + Rt * (dCp / Sc) * (dHp / Sh));
}

export const deltaEHex = (a: string, b: string): number => deltaE2000(hexToLab(a), hexToLab(b));

/** Chroma C*ab: below NEUTRAL_CHROMA a colour reads as white, grey or black. */
export const chroma = (lab: Lab): number => Math.hypot(lab[1], lab[2]);
export const NEUTRAL_CHROMA = 10;
export const isNeutral = (lab: Lab): boolean => chroma(lab) < NEUTRAL_CHROMA;

/** CMYK percentages (0..100) → sRGB by the naive device formula (no ICC profile). */
export function cmykToRgb(c: number, m: number, y: number, k: number): Rgb {
  const f = (v: number) => 255 * (1 - Math.min(100, Math.max(0, v)) / 100);
  const kk = 1 - Math.min(100, Math.max(0, k)) / 100;
  return [(f(c) * kk) as number, (f(m) * kk) as number, (f(y) * kk) as number].map(clamp255) as Rgb;
}

/** The CSS named colours (CSS Color 4), without `transparent` and `currentcolor`. */
const NAMED: Record<string, string> = {
  aliceblue: 'f0f8ff',
  antiquewhite: 'faebd7',
  aqua: '00ffff',
  aquamarine: '7fffd4',
  azure: 'f0ffff',
  beige: 'f5f5dc',
  bisque: 'ffe4c4',
  black: '000000',
  blanchedalmond: 'ffebcd',
  blue: '0000ff',
  blueviolet: '8a2be2',
  brown: 'a52a2a',
  burlywood: 'deb887',
  cadetblue: '5f9ea0',
  chartreuse: '7fff00',
  chocolate: 'd2691e',
  coral: 'ff7f50',
  cornflowerblue: '6495ed',
  cornsilk: 'fff8dc',
  crimson: 'dc143c',
  cyan: '00ffff',
  darkblue: '00008b',
  darkcyan: '008b8b',
  darkgoldenrod: 'b8860b',
  darkgray: 'a9a9a9',
  darkgreen: '006400',
  darkgrey: 'a9a9a9',
  darkkhaki: 'bdb76b',
  darkmagenta: '8b008b',
  darkolivegreen: '556b2f',
  darkorange: 'ff8c00',
  darkorchid: '9932cc',
  darkred: '8b0000',
  darksalmon: 'e9967a',
  darkseagreen: '8fbc8f',
  darkslateblue: '483d8b',
  darkslategray: '2f4f4f',
  darkslategrey: '2f4f4f',
  darkturquoise: '00ced1',
  darkviolet: '9400d3',
  deeppink: 'ff1493',
  deepskyblue: '00bfff',
  dimgray: '696969',
  dimgrey: '696969',
  dodgerblue: '1e90ff',
  firebrick: 'b22222',
  floralwhite: 'fffaf0',
  forestgreen: '228b22',
  fuchsia: 'ff00ff',
  gainsboro: 'dcdcdc',
  ghostwhite: 'f8f8ff',
  gold: 'ffd700',
  goldenrod: 'daa520',
  gray: '808080',
  green: '008000',
  greenyellow: 'adff2f',
  grey: '808080',
  honeydew: 'f0fff0',
  hotpink: 'ff69b4',
  indianred: 'cd5c5c',
  indigo: '4b0082',
  ivory: 'fffff0',
  khaki: 'f0e68c',
  lavender: 'e6e6fa',
  lavenderblush: 'fff0f5',
  lawngreen: '7cfc00',
  lemonchiffon: 'fffacd',
  lightblue: 'add8e6',
  lightcoral: 'f08080',
  lightcyan: 'e0ffff',
  lightgoldenrodyellow: 'fafad2',
  lightgray: 'd3d3d3',
  lightgreen: '90ee90',
  lightgrey: 'd3d3d3',
  lightpink: 'ffb6c1',
  lightsalmon: 'ffa07a',
  lightseagreen: '20b2aa',
  lightskyblue: '87cefa',
  lightslategray: '778899',
  lightslategrey: '778899',
  lightsteelblue: 'b0c4de',
  lightyellow: 'ffffe0',
  lime: '00ff00',
  limegreen: '32cd32',
  linen: 'faf0e6',
  magenta: 'ff00ff',
  maroon: '800000',
  mediumaquamarine: '66cdaa',
  mediumblue: '0000cd',
  mediumorchid: 'ba55d3',
  mediumpurple: '9370db',
  mediumseagreen: '3cb371',
  mediumslateblue: '7b68ee',
  mediumspringgreen: '00fa9a',
  mediumturquoise: '48d1cc',
  mediumvioletred: 'c71585',
  midnightblue: '191970',
  mintcream: 'f5fffa',
  mistyrose: 'ffe4e1',
  moccasin: 'ffe4b5',
  navajowhite: 'ffdead',
  navy: '000080',
  oldlace: 'fdf5e6',
  olive: '808000',
  olivedrab: '6b8e23',
  orange: 'ffa500',
  orangered: 'ff4500',
  orchid: 'da70d6',
  palegoldenrod: 'eee8aa',
  palegreen: '98fb98',
  paleturquoise: 'afeeee',
  palevioletred: 'db7093',
  papayawhip: 'ffefd5',
  peachpuff: 'ffdab9',
  peru: 'cd853f',
  pink: 'ffc0cb',
  plum: 'dda0dd',
  powderblue: 'b0e0e6',
  purple: '800080',
  rebeccapurple: '663399',
  red: 'ff0000',
  rosybrown: 'bc8f8f',
  royalblue: '4169e1',
  saddlebrown: '8b4513',
  salmon: 'fa8072',
  sandybrown: 'f4a460',
  seagreen: '2e8b57',
  seashell: 'fff5ee',
  sienna: 'a0522d',
  silver: 'c0c0c0',
  skyblue: '87ceeb',
  slateblue: '6a5acd',
  slategray: '708090',
  slategrey: '708090',
  snow: 'fffafa',
  springgreen: '00ff7f',
  steelblue: '4682b4',
  tan: 'd2b48c',
  teal: '008080',
  thistle: 'd8bfd8',
  tomato: 'ff6347',
  turquoise: '40e0d0',
  violet: 'ee82ee',
  wheat: 'f5deb3',
  white: 'ffffff',
  whitesmoke: 'f5f5f5',
  yellow: 'ffff00',
  yellowgreen: '9acd32',
};

/** A colour found in CSS text, with its alpha (0..1). */
export interface CssColor {
  hex: string;
  alpha: number;
}

const num = (s: string, scale: number): number => {
  const t = s.trim();
  if (t.endsWith('%')) return (Number.parseFloat(t) / 100) * scale;
  return Number.parseFloat(t);
};

const alphaOf = (s: string | undefined): number => {
  if (s === undefined || s.trim() === '') return 1;
  const v = num(s, 1);
  return Number.isFinite(v) ? Math.max(0, Math.min(1, v)) : 1;
};

/** The argument list of rgb()/hsl(), in comma or space syntax: [c1, c2, c3, alpha?]. */
function fnArgs(inner: string): string[] {
  const [main, slashAlpha] = inner.split('/');
  const parts = main!.includes(',') ? main!.split(',') : main!.trim().split(/\s+/);
  const out = parts.map((p) => p.trim()).filter(Boolean);
  if (slashAlpha !== undefined) out.push(slashAlpha.trim());
  return out;
}

const COLOR_TOKEN = /#[0-9a-f]{3,8}\b|\b(?:rgba?|hsla?)\(\s*[^()]*\)|\b[a-z]{3,20}\b/gi;

/**
 * Every colour written in a CSS value (`#0058a3`, `rgb(0 88 163 / .9)`, `hsl(...)`, named
 * colours), in order. `transparent`, `currentColor`, `inherit` and unparsable tokens are skipped.
 */
export function colorsInCss(value: string): CssColor[] {
  const out: CssColor[] = [];
  // url(...) can hold anything, including words that are colour names.
  const text = value.replace(/url\([^)]*\)/gi, ' ');
  for (const m of text.matchAll(COLOR_TOKEN)) {
    const c = parseCssColor(m[0]);
    if (c) out.push(c);
  }
  return out;
}

/** One CSS colour token; undefined for anything else. */
export function parseCssColor(token: string): CssColor | undefined {
  const t = token.trim().toLowerCase();
  if (t.startsWith('#')) {
    const h = t.slice(1);
    if (![3, 4, 6, 8].includes(h.length)) return undefined;
    const rgb = parseHex(h);
    if (!rgb) return undefined;
    const alpha =
      h.length === 4
        ? Number.parseInt(h[3]! + h[3]!, 16) / 255
        : h.length === 8
          ? Number.parseInt(h.slice(6), 16) / 255
          : 1;
    return { hex: toHex(rgb), alpha };
  }
  const fn = /^(rgba?|hsla?)\((.*)\)$/.exec(t);
  if (fn) {
    const args = fnArgs(fn[2]!);
    if (args.length < 3) return undefined;
    if (fn[1]!.startsWith('rgb')) {
      const rgb = args.slice(0, 3).map((a) => num(a, 255));
      if (rgb.some((v) => !Number.isFinite(v))) return undefined;
      return { hex: toHex(rgb as Rgb), alpha: alphaOf(args[3]) };
    }
    const h = Number.parseFloat(args[0]!);
    const s = num(args[1]!, 1);
    const l = num(args[2]!, 1);
    if (![h, s, l].every(Number.isFinite)) return undefined;
    // hsl() saturation/lightness are percentages; a bare number is read as a percentage too.
    const pct = (v: number, raw: string) => (raw.trim().endsWith('%') ? v : v / 100);
    const unit = (v: number) => Math.max(0, Math.min(1, v));
    return { hex: toHex(hslToRgb(h, unit(pct(s, args[1]!)), unit(pct(l, args[2]!)))), alpha: alphaOf(args[3]) };
  }
  const named = NAMED[t];
  return named ? { hex: `#${named}`, alpha: 1 } : undefined;
}
