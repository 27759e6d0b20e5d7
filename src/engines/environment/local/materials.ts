/**
 * Procedural materials for the local environment engine. Each is a shader over surface
 * coordinates in centimetres (u across, v along the surface: depth for a floor, height for a
 * wall) that writes a linear-light albedo, its gloss and a surface slope. Every shader takes the
 * pixel footprint (cm) and fades detail finer than it, so textures stay clean however far away
 * the perspective puts them.
 */
import type { Backdrop, Rgb } from './environment-prompt.ts';
import { prng } from '../../shared/prng.ts';
import { hash2, hashBits, lod, type Noise } from './noise.ts';
import { smoothstep } from '../../shared/math.ts';

/** Linear-light RGB. */
export type Lin = [number, number, number];

/**
 * out[0..2]: linear albedo; out[3]: gloss 0..1 (reflection strength); out[4]: slope of the surface
 * along v (ripples), which bends reflections.
 */
export type Shader = (u: number, v: number, fp: number, out: Float64Array) => void;

export interface Material {
  shade: Shader;
  /** Typical gloss (reflection strength at grazing angles), 0 matte .. 1 mirror-like. */
  gloss: number;
  /** Specular lobe sharpness: higher is a tighter highlight. */
  specPower: number;
}

export interface MaterialContext {
  noise: Noise;
  seed: number;
  /** The surface's colour (sRGB 0..255). */
  color: Rgb;
  /** Accent colours (sRGB) for chips and flecks. */
  accents: Rgb[];
  variants: ReadonlySet<string>;
  /** Direction towards the light across the surface, in (u, v) (unit length or 0). */
  lightU: number;
  lightV: number;
  plane: 'floor' | 'wall';
}

export function srgbToLinear(c: number): number {
  const s = c / 255;
  return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
}

export function toLin(c: Rgb): Lin {
  return [srgbToLinear(c[0]), srgbToLinear(c[1]), srgbToLinear(c[2])];
}

function luminance(c: Lin): number {
  return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
}

/** Writes the albedo `c × m`, the gloss and the slope. */
function put(out: Float64Array, c: Lin, m: number, gloss: number, slope = 0): void {
  out[0] = c[0] * m;
  out[1] = c[1] * m;
  out[2] = c[2] * m;
  out[3] = gloss;
  out[4] = slope;
}

export function createMaterial(kind: Exclude<Backdrop, 'sky'>, ctx: MaterialContext): Material {
  switch (kind) {
    case 'paper':
      return paper(ctx);
    case 'plaster':
      return plaster(ctx);
    case 'concrete':
      return concrete(ctx);
    case 'marble':
      return marble(ctx);
    case 'wood':
      return wood(ctx);
    case 'linen':
      return fabric(ctx, false);
    case 'velvet':
      return fabric(ctx, true);
    case 'sand':
      return sand(ctx);
    case 'water':
      return water(ctx);
    case 'terrazzo':
      return terrazzo(ctx);
    case 'stone':
      return stone(ctx);
    case 'tile':
      return tile(ctx);
  }
}

/** Seamless paper: nearly flat, a faint mottle and fibres. */
function paper(ctx: MaterialContext): Material {
  const { noise } = ctx;
  const base = toLin(ctx.color);
  return {
    gloss: 0.04,
    specPower: 8,
    shade(u, v, fp, out) {
      const mottle = noise.fbm(u * 0.03, v * 0.03, 4, fp * 0.03);
      const fibre = noise.noise(u * 0.9 + 3.1, v * 0.3) * lod(0.9, fp);
      const tooth = noise.noise(u * 2.5, v * 2.5) * lod(2.5, fp);
      put(out, base, 1 + 0.03 * mottle + 0.015 * fibre + 0.012 * tooth, 0.04);
    },
  };
}

/** Limewash / plaster: cloudy mottling, trowel strokes and fine grit. */
function plaster(ctx: MaterialContext): Material {
  const { noise } = ctx;
  const base = toLin(ctx.color);
  const polished = ctx.variants.has('venetian') || ctx.variants.has('tadelakt') || ctx.variants.has('polished');
  const lum = luminance(base);
  const gloss = polished ? 0.25 : 0.03;
  return {
    gloss,
    specPower: polished ? 30 : 6,
    shade(u, v, fp, out) {
      const cloud = noise.fbm(u * 0.011, v * 0.011, 5, fp * 0.011);
      const w = cloud * 2.2;
      const stroke = noise.fbm(u * 0.045 + w, v * 0.03 - w, 3, fp * 0.045);
      const grit = noise.noise(u * 1.3, v * 1.3) * lod(1.3, fp);
      const m = 1 + 0.085 * cloud + 0.035 * stroke + 0.015 * grit;
      // Limewash: darker patches are also a little richer in colour.
      const s = 1 - 0.6 * (m - 1);
      out[0] = (lum + (base[0] - lum) * s) * m;
      out[1] = (lum + (base[1] - lum) * s) * m;
      out[2] = (lum + (base[2] - lum) * s) * m;
      out[3] = gloss;
      out[4] = 0;
    },
  };
}

/** Concrete: mottled cement, trowel streaks, pores and aggregate speckle. */
function concrete(ctx: MaterialContext): Material {
  const { noise } = ctx;
  const base = toLin(ctx.color);
  const polished = ctx.variants.has('polished');
  const gloss = polished ? 0.35 : 0.06;
  return {
    gloss,
    specPower: polished ? 40 : 6,
    shade(u, v, fp, out) {
      const mottle = noise.fbm(u * 0.03, v * 0.03, 5, fp * 0.03);
      const blotch = smoothstep(0.05, 0.5, noise.noise(u * 0.015 + 40, v * 0.015));
      const streak = noise.fbm((u + v * 0.35) * 0.004, v * 0.06, 2, fp * 0.06);
      const pn = noise.noise(u * 1.7 + 11, v * 1.7);
      const pores = smoothstep(0.5, 0.7, pn) * lod(1.7, fp) * (polished ? 0.3 : 1);
      const speck = noise.noise(u * 2.3, v * 2.3 + 7) * lod(2.3, fp);
      const fine = noise.fbm(u * 0.08, v * 0.08, 3, fp * 0.08);
      const m = (1 + 0.2 * mottle - 0.1 * blotch + 0.05 * streak + 0.1 * fine + 0.06 * speck) * (1 - 0.25 * pores);
      put(out, base, m, gloss * (1 - pores));
    },
  };
}

/**
 * Marble: a cloudy body and veins at two scales. Veins are the zero lines of a turbulently warped
 * noise: a sharp core with a feathered halo, their strength broken up along their length, and
 * widened (and faded) where the pixel footprint is coarse, so they never alias.
 */
function marble(ctx: MaterialContext): Material {
  const { noise } = ctx;
  const base = toLin(ctx.color);
  const lum = luminance(base);
  const dark = lum < 0.18;
  const calacatta = ctx.variants.has('calacatta');
  // Veins: grey (warm gold-grey for calacatta) on light marble; near-white on dark marble.
  const vein: Lin = dark
    ? [0.55, 0.53, 0.5]
    : calacatta
      ? [base[0] * 0.45, base[1] * 0.38, base[2] * 0.28]
      : [base[0] * 0.4, base[1] * 0.41, base[2] * 0.44];
  const rng = prng(ctx.seed ^ 0x5eed);
  const angle = (rng() - 0.5) * 1.6;
  const ca = Math.cos(angle);
  const sa = Math.sin(angle);
  const S = 0.007;
  // A vein: distance of a phase to the nearest whole number, a sharp core with a feathered halo,
  // widened (and faded) where the footprint (in phase units) is coarse.
  const veinAt = (ph: number, w: number, fpp: number): number => {
    const d = ph - Math.round(ph);
    const we = Math.max(w, fpp * 2.5);
    const q = (d / we) ** 2;
    return (Math.exp(-q) * 0.8 + Math.exp(-q * 0.05) * 0.2) * (w / we) ** 0.6;
  };
  return {
    gloss: 0.5,
    specPower: 60,
    shade(u, v, fp, out) {
      const x = u * ca - v * sa;
      const y = u * sa + v * ca;
      const t1 = noise.fbm(x * S, y * S, 5, fp * S);
      const t2 = noise.fbm(x * S * 1.7 + 5.2, y * S * 1.7 + 1.3, 4, fp * S * 1.7);
      // Main veins: long wavy lines across x; secondary ones at another angle, in patches.
      const ph1 = x * 0.026 + 1.7 * t1 + 0.35 * t2;
      const ph2 = (x * 0.55 - y * 0.83) * 0.045 + 1.3 * t2 + 0.7 * t1;
      const w1 = 0.006 + 0.022 * smoothstep(-0.3, 0.7, noise.noise(x * 0.012 + 3.3, y * 0.012));
      const gate1 = smoothstep(-0.55, 0.35, noise.noise(x * 0.006 + 9.7, y * 0.006));
      const gate2 = smoothstep(0, 0.55, noise.noise(x * 0.009 - 4, y * 0.009 + 8));
      const veins = Math.min(
        1,
        veinAt(ph1, w1, fp * 0.06) * (0.2 + 0.7 * gate1) + veinAt(ph2, 0.012, fp * 0.1) * 0.5 * gate2,
      );
      // Soft grey clouds (light marble) or lighter drifts (dark marble) between the veins.
      const drift = smoothstep(0.1, 0.7, noise.fbm(x * 0.02 + 11, y * 0.02, 3, fp * 0.02) + 0.4 * t2);
      const cloud = 1 + (dark ? 0.14 : 0.04) * t1 + (dark ? 0.25 : -0.09) * drift;
      const k = 1 - veins;
      out[0] = base[0] * cloud * k + vein[0] * veins;
      out[1] = base[1] * cloud * k + vein[1] * veins;
      out[2] = base[2] * cloud * k + vein[2] * veins;
      out[3] = 0.5;
      out[4] = 0;
    },
  };
}

/** Wood: boards with seams, growth rings (warped, arching), fibres and pores. */
function wood(ctx: MaterialContext): Material {
  const { noise, seed } = ctx;
  const base = toLin(ctx.color);
  const rng = prng(seed ^ 0x600d);
  const boardWidth = 13 + rng() * 8;
  const light: Lin = [base[0] * 1.18, base[1] * 1.18, base[2] * 1.14];
  const late: Lin = [base[0] * 0.62, base[1] * 0.56, base[2] * 0.52];
  const gloss = ctx.variants.has('polished') ? 0.35 : 0.16;
  // On a wall boards stand vertically.
  const vertical = ctx.plane === 'wall';
  return {
    gloss,
    specPower: 25,
    shade(u0, v0, fp, out) {
      const u = vertical ? v0 : u0;
      const v = vertical ? u0 : v0;
      const k = Math.floor(v / boardWidth);
      const t = v - k * boardWidth;
      const len = 90 + hash2(k, 1, seed) * 80;
      const uo = u + hash2(k, 2, seed) * len;
      const j = Math.floor(uo / len);
      const tu = uo - j * len;
      const r1 = hash2(k, j * 7 + 3, seed);
      const r2 = hash2(k, j * 7 + 4, seed);
      const r3 = hash2(k, j * 7 + 5, seed);
      // Rings: lines along u, warped, arched around a per-board centre (cathedral grain).
      const arch = ((tu - len * (0.3 + 0.4 * r2)) / len) ** 2 * (r3 * 16 - 4);
      const warp = noise.fbm(u * 0.016 + r1 * 50, v * 0.06, 3, fp * 0.06);
      const ringFreq = 0.28 + r2 * 0.3;
      const rc = (t + r1 * 40) * ringFreq + 2.6 * warp + arch;
      const ring = rc - Math.floor(rc);
      const ringLod = lod(ringFreq * 3, fp);
      const lateWood = (smoothstep(0.3, 0.78, ring) - smoothstep(0.82, 1, ring)) * ringLod + 0.3 * (1 - ringLod);
      // Finer secondary rings inside the broad figure.
      const rc2 = rc * 3.1;
      const fine = (Math.abs(rc2 - Math.floor(rc2) - 0.5) * 2 - 0.5) * lod(ringFreq * 3.1 * 2, fp);
      const fibre = noise.noise(u * 0.035, v * 2.6 + r1 * 9) * lod(2.6, fp);
      const pore = smoothstep(0.35, 0.7, noise.noise(u * 0.5, v * 7)) * lod(7, fp);
      const tintB = 0.9 + r1 * 0.2;
      const tone = tintB * (1 + 0.07 * fibre - 0.15 * pore - 0.1 * fine);
      const lw = lateWood * 0.6;
      let r = (light[0] * (1 - lw) + late[0] * lw) * tone;
      let g = (light[1] * (1 - lw) + late[1] * lw) * tone;
      let b = (light[2] * (1 - lw) + late[2] * lw) * (tone * (0.96 + r2 * 0.08));
      // Seams between boards and at board ends: a thin dark gap, faded when under a pixel.
      const sw = Math.max(0.12, fp * 0.7);
      const dv = Math.min(t, boardWidth - t);
      const du = Math.min(tu, len - tu);
      const seam = Math.max(1 - smoothstep(0, sw, dv), 1 - smoothstep(0, sw, du)) * Math.min(1, 0.12 / sw) * 0.75;
      r *= 1 - seam;
      g *= 1 - seam;
      b *= 1 - seam;
      out[0] = r;
      out[1] = g;
      out[2] = b;
      out[3] = gloss * (1 - seam);
      out[4] = 0;
    },
  };
}

/** Linen (weave, slubs, soft folds) or velvet (crushed pile sheen, folds). */
function fabric(ctx: MaterialContext, velvet: boolean): Material {
  const { noise } = ctx;
  const base = toLin(ctx.color);
  const crumpled = ctx.variants.has('crumpled') || ctx.variants.has('wrinkled') || ctx.variants.has('crushed');
  const fold = crumpled ? 1.6 : 1;
  const lu = ctx.lightU;
  const lv = ctx.lightV;
  const f = 5.5; // threads per cm
  const sheen: Lin = [base[0] * 1.9 + 0.02, base[1] * 1.9 + 0.02, base[2] * 1.9 + 0.02];
  // Folds run mostly across the frame: the height field is stretched along u.
  const height = (u: number, v: number, fp: number): number =>
    noise.fbm(u * 0.012, v * 0.035, 3, fp * 0.035) - 0.45 * Math.abs(noise.noise(u * 0.018 + 3, v * 0.05));
  return {
    gloss: 0,
    specPower: 4,
    shade(u, v, fp, out) {
      // Folds: slope of a soft height field towards the light.
      const h0 = height(u, v, fp);
      const d = 2.5;
      const h1 = height(u + lu * d, v + lv * d, fp);
      const shade = 1 + Math.max(-0.35, Math.min(0.35, (h1 - h0) * 2.2 * fold)) + 0.05 * h0;
      if (velvet) {
        // Crushed pile: patches where the pile leans towards the light catch a paler sheen.
        const crush = noise.fbm(u * 0.06 + 7, v * 0.06, 4, fp * 0.06);
        const s = smoothstep(-0.15, 0.45, crush + (h1 - h0) * 3) * 0.45;
        const pile = noise.noise(u * 0.35, v * 1.6 + 5) * lod(1.6, fp);
        const micro = noise.noise(u * 1.4, v * 1.4) * lod(1.4, fp);
        const m = shade * (0.88 + 0.05 * pile + 0.05 * micro);
        out[0] = (base[0] * (1 - s) + sheen[0] * s) * m;
        out[1] = (base[1] * (1 - s) + sheen[1] * s) * m;
        out[2] = (base[2] * (1 - s) + sheen[2] * s) * m;
        out[3] = 0;
        out[4] = 0;
        return;
      }
      const weaveLod = lod(f, fp);
      const weave = weaveLod > 0 ? Math.cos(6.2832 * u * f) * Math.cos(6.2832 * v * f) * weaveLod : 0;
      const slubLod = lod(f * 0.6, fp);
      const slub =
        slubLod > 0 ? (noise.noise(u * 0.05, v * f * 0.6) + noise.noise(u * f * 0.6 + 31, v * 0.05)) * slubLod : 0;
      const fleck = smoothstep(0.62, 0.85, noise.noise(u * 0.9 + 17, v * 0.25)) * lod(0.9, fp);
      const m = shade * (1 + 0.05 * weave + 0.045 * slub - 0.06 * fleck);
      put(out, base, m, 0);
    },
  };
}

/** Sand: wind ripples lit from the side, dune undulation and grains. */
function sand(ctx: MaterialContext): Material {
  const { noise, seed } = ctx;
  const base = toLin(ctx.color);
  const rng = prng(seed ^ 0x5a4d);
  const a = (rng() - 0.5) * 0.7;
  const ga = Math.sin(a);
  const gb = Math.cos(a);
  const freq = (2 * Math.PI) / (6 + rng() * 4);
  const facing = ga * ctx.lightU + gb * ctx.lightV;
  const side = Math.abs(facing) < 0.35 ? 0.35 * Math.sign(facing || 1) : facing;
  return {
    gloss: 0,
    specPower: 4,
    shade(u, v, fp, out) {
      const w = noise.fbm(u * 0.015, v * 0.02, 3, fp * 0.02);
      const ph = (u * ga + v * gb) * freq + 3.2 * w;
      const strength = smoothstep(-0.45, 0.35, noise.noise(u * 0.012 + 4, v * 0.012)) * lod(freq / 6.28, fp);
      const slope = (Math.cos(ph) + 0.45 * Math.cos(2 * ph + 0.6)) * strength;
      const dune = noise.fbm(u * 0.004 + 1.7, v * 0.004, 2, fp * 0.004);
      const grain = noise.noise(u * 3.1, v * 3.1) * lod(3.1, fp);
      const sparkle = smoothstep(0.55, 0.75, noise.noise(u * 2.2 + 50, v * 2.2)) * lod(2.2, fp);
      const m = (1 + 0.16 * slope * side + 0.07 * dune + 0.06 * grain) * (1 + 0.12 * sparkle);
      put(out, base, m, 0, 0);
    },
  };
}

/** Water: shallow water over a light floor (caustics) or open water (waves); reflective. */
function water(ctx: MaterialContext): Material {
  const { noise } = ctx;
  const base = toLin(ctx.color);
  const open = ctx.variants.has('ocean') || ctx.variants.has('sea') || ctx.variants.has('open');
  const deep: Lin = [base[0] * 0.45, base[1] * 0.6, base[2] * 0.7];
  return {
    gloss: 0.9,
    specPower: 200,
    shade(u, v, fp, out) {
      const wv = noise.fbm(u * 0.03, v * 0.09, 4, fp * 0.09);
      const slope = noise.fbm(u * 0.03 + 0.7, v * 0.09 + 2.1, 3, fp * 0.09) - wv;
      if (open) {
        const m = 1 + 0.25 * wv;
        out[0] = deep[0] * m;
        out[1] = deep[1] * m;
        out[2] = deep[2] * m;
        out[3] = 0.95;
        out[4] = slope * 3;
        return;
      }
      const cl = lod(0.08, fp);
      const w1 = noise.fbm(u * 0.02, v * 0.02, 2, fp * 0.02) * 1.5;
      const c1 = 1 - Math.abs(noise.noise(u * 0.08 + w1, v * 0.08 - w1));
      const c2 = 1 - Math.abs(noise.noise(u * 0.11 - w1 + 20, v * 0.11 + w1));
      const caustic = (c1 ** 9 + c2 ** 9) * cl;
      const depthShade = 0.85 + 0.2 * wv;
      out[0] = base[0] * depthShade + caustic * 0.35;
      out[1] = base[1] * depthShade + caustic * 0.42;
      out[2] = base[2] * depthShade + caustic * 0.42;
      out[3] = 0.8;
      out[4] = slope * 2.5;
    },
  };
}

/** Terrazzo: a speckled matrix with polygonal chips in neutral and accent colours. */
function terrazzo(ctx: MaterialContext): Material {
  const { noise, seed } = ctx;
  const base = toLin(ctx.color);
  const neutrals: Rgb[] = [
    [120, 118, 114],
    [70, 70, 72],
    [244, 242, 236],
    [196, 124, 96],
    [214, 196, 170],
  ];
  // Neutral chips twice as common as accent ones.
  const chipColors = [...ctx.accents.slice(0, 3), ...neutrals, ...neutrals.slice(0, 3)].map(toLin);
  const cell = 1.5;
  return {
    gloss: 0.32,
    specPower: 40,
    shade(u, v, fp, out) {
      const cu = Math.floor(u / cell);
      const cv = Math.floor(v / cell);
      let cover = 0;
      let cr = 0;
      let cg = 0;
      let cb = 0;
      const aa = Math.max(0.05, fp * 0.9);
      const reach = (cell * 0.48 + aa) * 1.5;
      const reach2 = reach * reach;
      for (let dj = -1; dj <= 1; dj++) {
        for (let di = -1; di <= 1; di++) {
          const i = cu + di;
          const j = cv + dj;
          const h = hashBits(i, j, seed);
          // Presence and centre from one hash (10 bits each), then skip chips too far to touch.
          if ((h & 1023) > 716) continue;
          const x = (i + 0.15 + 0.7 * (((h >>> 10) & 1023) / 1023)) * cell - u;
          const y = (j + 0.15 + 0.7 * (((h >>> 20) & 1023) / 1023)) * cell - v;
          if (x * x + y * y > reach2) continue;
          const r = cell * (0.1 + 0.38 * hash2(i, j, seed + 3) ** 3);
          const a = hash2(i, j, seed + 4) * Math.PI;
          const c1 = Math.cos(a);
          const s1 = Math.sin(a);
          // An irregular polygon: the largest of three projections.
          const d = Math.max(
            Math.abs(x * c1 + y * s1),
            Math.abs(x * -s1 + y * c1) * 1.25,
            Math.abs((x * (c1 - s1) + y * (s1 + c1)) * 0.62),
          );
          const cov = 1 - smoothstep(r - aa, r + aa, d);
          if (cov <= 0) continue;
          const col = chipColors[Math.floor(hash2(i, j, seed + 5) * chipColors.length)]!;
          const tone = 0.85 + 0.3 * hash2(i, j, seed + 6);
          const add = cov * (1 - cover);
          cr += col[0] * tone * add;
          cg += col[1] * tone * add;
          cb += col[2] * tone * add;
          cover += add;
        }
      }
      const speck = noise.noise(u * 4, v * 4) * lod(4, fp);
      const cloud = noise.fbm(u * 0.03, v * 0.03, 2, fp * 0.03);
      const m = 1 + 0.06 * speck + 0.03 * cloud;
      const k = 1 - cover;
      out[0] = base[0] * m * k + cr;
      out[1] = base[1] * m * k + cg;
      out[2] = base[2] * m * k + cb;
      out[3] = 0.32;
      out[4] = 0;
    },
  };
}

/** Stone: travertine (bands and elongated pores) or, when dark, slate/granite (cleft and speckle). */
function stone(ctx: MaterialContext): Material {
  const { noise } = ctx;
  const base = toLin(ctx.color);
  const dark = luminance(base) < 0.15;
  const granite = ctx.variants.has('granite');
  const holes: Lin = [base[0] * 0.62, base[1] * 0.55, base[2] * 0.45];
  const gloss = ctx.variants.has('polished') ? 0.35 : 0.08;
  return {
    gloss,
    specPower: 20,
    shade(u, v, fp, out) {
      if (dark || granite) {
        // Cleft layers (long ridges along u), a finer grain, specks.
        const cleft = noise.fbm(u * 0.012, v * 0.06, 5, fp * 0.06);
        const ridge = 1 - Math.abs(noise.fbm(u * 0.02 + 5, v * 0.12, 3, fp * 0.12));
        const grain = noise.fbm(u * 0.25, v * 0.4, 2, fp * 0.4);
        const speck = noise.noise(u * 1.8, v * 1.8) * lod(1.8, fp);
        const m = 1 + 0.26 * cleft + 0.16 * (ridge - 0.6) + 0.07 * grain + (granite ? 0.25 : 0.06) * speck;
        put(out, base, m, gloss);
        return;
      }
      const band = noise.fbm(u * 0.003, v * 0.07, 3, fp * 0.07);
      const cloud = noise.fbm(u * 0.02 + 3, v * 0.02, 3, fp * 0.02);
      const pn = noise.noise(u * 0.12, v * 0.75) + 0.4 * noise.noise(u * 0.4, v * 1.5);
      const pore = smoothstep(0.38, 0.62, pn) * lod(0.75, fp);
      const m = 1 + 0.07 * band + 0.05 * cloud;
      const k = 0.55 * pore;
      out[0] = base[0] * m * (1 - k) + holes[0] * k;
      out[1] = base[1] * m * (1 - k) + holes[1] * k;
      out[2] = base[2] * m * (1 - k) + holes[2] * k;
      out[3] = gloss * (1 - pore);
      out[4] = 0;
    },
  };
}

/** Tiles: square floor tiles, subway (running bond) or zellige on walls, with grout and glaze. */
function tile(ctx: MaterialContext): Material {
  const { noise, seed } = ctx;
  const base = toLin(ctx.color);
  const zellige = ctx.variants.has('zellige');
  const subway = ctx.plane === 'wall' && !zellige && (ctx.variants.has('subway') || !ctx.variants.has('mosaic'));
  const checker = ctx.variants.has('checkerboard');
  const tw = subway ? 15 : zellige ? 10 : ctx.variants.has('mosaic') ? 2.5 : ctx.plane === 'wall' ? 10 : 20;
  const th = subway ? 7.5 : tw;
  const grout: Lin = [base[0] * 0.72 + 0.02, base[1] * 0.72 + 0.02, base[2] * 0.7 + 0.02];
  const alt: Lin = [base[0] * 0.12, base[1] * 0.12, base[2] * 0.13];
  const var_ = zellige ? 0.09 : 0.035;
  return {
    gloss: 0.45,
    specPower: 90,
    shade(u, v, fp, out) {
      const j = Math.floor(v / th);
      const uo = subway && j & 1 ? u + tw / 2 : u;
      const i = Math.floor(uo / tw);
      const tu = uo - i * tw;
      const tv = v - j * th;
      const dEdge = Math.min(tu, tw - tu, tv, th - tv);
      const gw = 0.14;
      const aa = Math.max(0.04, fp * 0.7);
      const groutLod = Math.min(1, (gw * 2.2) / (aa + gw));
      const g = (1 - smoothstep(gw - aa, gw + aa, dEdge)) * groutLod;
      const bevel = (1 - smoothstep(gw, gw + 0.5, dEdge)) * lod(2, fp) * 0.12;
      const h = hash2(i, j, seed);
      const tone = 1 + var_ * (h - 0.5) * 2;
      // Each tile sits at a slight tilt (catching the light unevenly); zellige glaze pools.
      const tilt =
        ((hash2(i, j, seed + 1) - 0.5) * (tu / tw - 0.5) + (hash2(i, j, seed + 2) - 0.5) * (tv / th - 0.5)) *
        (zellige ? 0.35 : 0.08);
      const glaze = zellige
        ? 0.07 * noise.fbm(u * 0.2, v * 0.2, 3, fp * 0.2) - 0.08 * (1 - smoothstep(0.2, 1.5, dEdge))
        : 0;
      const c = checker && (i + j) & 1 ? alt : base;
      const m = tone * (1 + glaze + tilt - bevel);
      const k = 1 - g;
      out[0] = c[0] * m * k + grout[0] * g;
      out[1] = c[1] * m * k + grout[1] * g;
      out[2] = c[2] * m * k + grout[2] * g;
      out[3] = 0.45 * k;
      out[4] = 0;
    },
  };
}
