/**
 * Colour naming for dominant colours and auto tags: a small fixed palette of everyday names, each
 * with a few sRGB anchors, matched by nearest distance in CIELAB (CIE76), which follows perceived
 * difference far better than RGB distance. Also the hex colour parser the engines and Brand DNA share.
 */
export const COLOR_NAMES = [
  'black',
  'white',
  'gray',
  'red',
  'maroon',
  'orange',
  'brown',
  'beige',
  'yellow',
  'olive',
  'green',
  'teal',
  'cyan',
  'light-blue',
  'blue',
  'navy',
  'purple',
  'pink',
  'magenta',
] as const;
export type ColorName = (typeof COLOR_NAMES)[number];

const ANCHORS: Record<ColorName, readonly string[]> = {
  black: ['000000', '1a1a1a'],
  white: ['ffffff', 'f2f2f2'],
  gray: ['808080', 'b3b3b3', '4d4d4d'],
  red: ['ff0000', 'e02020', 'c0392b'],
  maroon: ['800000', '5c1a1a'],
  orange: ['ff8c00', 'f39c12', 'ff6f3c'],
  brown: ['8b4513', 'a0522d', '6f4e37'],
  beige: ['f5f5dc', 'e8d8b8', 'd2b48c'],
  yellow: ['ffff00', 'f1c40f', 'ffd700'],
  olive: ['808000', '6b8e23'],
  green: ['00a000', '2ecc71', '228b22', '00ff00'],
  teal: ['008080', '1abc9c'],
  cyan: ['00ffff', '40e0d0'],
  'light-blue': ['87ceeb', 'add8e6'],
  blue: ['0000ff', '1e90ff', '3498db', '4169e1'],
  navy: ['000080', '1b2a4a', '191970'],
  purple: ['800080', '8e44ad', '9370db'],
  pink: ['ffc0cb', 'ff69b4', 'f4a6b8'],
  magenta: ['ff00ff', 'e91e63'],
};

export type Lab = [number, number, number];
export type Rgb = [number, number, number];

const toLinear = (c: number) => {
  const v = c / 255;
  return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
};
const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : (t * 24389) / 27 / 116 + 16 / 116);

/** sRGB (0..255 each) → CIELAB under D65. */
export function rgbToLab(r: number, g: number, b: number): Lab {
  const R = toLinear(r);
  const G = toLinear(g);
  const B = toLinear(b);
  const x = (0.4124564 * R + 0.3575761 * G + 0.1804375 * B) / 0.95047;
  const y = 0.2126729 * R + 0.7151522 * G + 0.072175 * B;
  const z = (0.0193339 * R + 0.119192 * G + 0.9503041 * B) / 1.08883;
  const fx = f(x);
  const fy = f(y);
  const fz = f(z);
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

/** 5 bits per channel, expanded back to 8 by bit replication (so 0 stays 0 and 255 stays 255). */
const q5 = (v: number) => (v & 0xf8) | (v >> 5);
const key15 = (r: number, g: number, b: number) => ((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3);

/**
 * rgbToLab memoised per 15-bit colour: for rasters, one conversion per distinct colour bucket
 * instead of one per pixel (the error, under 1 ΔE on average, is far below the thresholds).
 */
export function createLabLookup(): (r: number, g: number, b: number) => Lab {
  const cache = new Map<number, Lab>();
  return (r, g, b) => {
    const key = key15(r, g, b);
    let lab = cache.get(key);
    if (!lab) {
      lab = rgbToLab(q5(r), q5(g), q5(b));
      cache.set(key, lab);
    }
    return lab;
  };
}

export const labDistance = (a: Lab, b: Lab): number => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

const hexRgb = (hex: string): [number, number, number] => [
  Number.parseInt(hex.slice(0, 2), 16),
  Number.parseInt(hex.slice(2, 4), 16),
  Number.parseInt(hex.slice(4, 6), 16),
];

const PALETTE: readonly { name: ColorName; lab: Lab }[] = COLOR_NAMES.flatMap((name) =>
  ANCHORS[name].map((hex) => ({ name, lab: rgbToLab(...hexRgb(hex)) })),
);

/** The palette name nearest to an sRGB colour. */
export const nameColor = (r: number, g: number, b: number): ColorName => nearestName(rgbToLab(r, g, b));

function nearestName(lab: Lab): ColorName {
  let best = PALETTE[0]!;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const entry of PALETTE) {
    const d = labDistance(lab, entry.lab);
    if (d < bestDistance) {
      bestDistance = d;
      best = entry;
    }
  }
  return best.name;
}

export const rgbHex = (r: number, g: number, b: number): string =>
  `#${[r, g, b].map((v) => Math.round(v).toString(16).padStart(2, '0')).join('')}`;

/** sRGB 0..255 → HSL: hue in degrees (0..360), saturation and lightness 0..1. */
export function rgbToHsl([r8, g8, b8]: readonly [number, number, number]): [number, number, number] {
  const r = r8 / 255;
  const g = g8 / 255;
  const b = b8 / 255;
  const max = Math.max(r, g, b);
  const min = Math.min(r, g, b);
  const l = (max + min) / 2;
  if (max === min) return [0, 0, l];
  const d = max - min;
  const s = l > 0.5 ? d / (2 - max - min) : d / (max + min);
  let h: number;
  if (max === r) h = (g - b) / d + (g < b ? 6 : 0);
  else if (max === g) h = (b - r) / d + 2;
  else h = (r - g) / d + 4;
  return [h * 60, s, l];
}

/**
 * HSL (hue in degrees, any turn; saturation and lightness 0..1) → sRGB 0..255, not rounded.
 */
export function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  if (s === 0) return [l * 255, l * 255, l * 255];
  const turn = (((h % 360) + 360) % 360) / 360;
  const q = l < 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  const channel = (t: number) => {
    const u = t < 0 ? t + 1 : t > 1 ? t - 1 : t;
    if (u < 1 / 6) return p + (q - p) * 6 * u;
    if (u < 1 / 2) return q;
    if (u < 2 / 3) return p + (q - p) * (2 / 3 - u) * 6;
    return p;
  };
  return [channel(turn + 1 / 3) * 255, channel(turn) * 255, channel(turn - 1 / 3) * 255];
}

/** `#rgb`, `#rrggbb` (with or without `#`); alpha forms are read without their alpha. */
export function parseHex(input: string): Rgb | undefined {
  const m = /^#?([0-9a-f]{3,8})$/i.exec(input.trim());
  if (!m) return undefined;
  const h = m[1]!;
  if (h.length === 3 || h.length === 4) {
    return [0, 1, 2].map((i) => Number.parseInt(h[i]! + h[i]!, 16)) as Rgb;
  }
  if (h.length === 6 || h.length === 8) {
    return [0, 2, 4].map((i) => Number.parseInt(h.slice(i, i + 2), 16)) as Rgb;
  }
  return undefined;
}

export interface DominantColor {
  name: ColorName;
  /** Mean colour of the pixels that got this name. */
  hex: string;
  /** Share of the counted (opaque) pixels, 0..1. */
  fraction: number;
}

/**
 * Names every sampled opaque pixel of an RGBA raster (every `step`-th pixel) and returns the names
 * covering at least `minFraction` of them, largest first, at most `max`.
 */
export function dominantColors(
  rgba: Uint8Array,
  opts: { step?: number; minFraction?: number; max?: number } = {},
): DominantColor[] {
  const step = opts.step ?? 1;
  const minFraction = opts.minFraction ?? 0.1;
  const max = opts.max ?? 3;
  const labOf = createLabLookup();
  const names = new Map<Lab, ColorName>();
  const sums = new Map<ColorName, { n: number; r: number; g: number; b: number }>();
  let counted = 0;
  for (let i = 0; i + 3 < rgba.length; i += 4 * step) {
    if (rgba[i + 3]! < 128) continue;
    const r = rgba[i]!;
    const g = rgba[i + 1]!;
    const b = rgba[i + 2]!;
    const lab = labOf(r, g, b);
    let name = names.get(lab);
    if (!name) {
      name = nearestName(lab);
      names.set(lab, name);
    }
    const s = sums.get(name) ?? { n: 0, r: 0, g: 0, b: 0 };
    s.n++;
    s.r += r;
    s.g += g;
    s.b += b;
    sums.set(name, s);
    counted++;
  }
  if (counted === 0) return [];
  return [...sums.entries()]
    .map(([name, s]) => ({ name, hex: rgbHex(s.r / s.n, s.g / s.n, s.b / s.n), fraction: s.n / counted }))
    .filter((c) => c.fraction >= minFraction)
    .sort((a, b) => b.fraction - a.fraction)
    .slice(0, max)
    .map((c) => ({ ...c, fraction: Math.round(c.fraction * 1000) / 1000 }));
}
