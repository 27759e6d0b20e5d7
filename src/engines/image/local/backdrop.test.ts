import { describe, expect, it } from 'vitest';
import {
  type AccentSpec,
  depthBlurRadii,
  paintAccents,
  paintColour,
  type SteerFocus,
  poolLight,
  separateBackdrop,
  simplifyBackdrop,
  studioBackdrop,
} from './backdrop.ts';
import { luma, toLab } from './raster.ts';

const W = 320;
const H = 320;
const RED: [number, number, number] = [214, 40, 40];
const focus: SteerFocus = { box: { left: 50, top: 150, width: 90, height: 90 }, productLuma: 40, horizon: 0.5 };

const px = (rgb: Uint8Array, x: number, y: number) => {
  const i = (y * W + x) * 3;
  return [rgb[i]!, rgb[i + 1]!, rgb[i + 2]!];
};
const lab = (c: number[]) => Array.from(toLab(c, 1, 3));
const deltaE = (a: number[], b: number[]) => {
  const [p, q] = [lab(a), lab(b)];
  return Math.hypot(p[0]! - q[0]!, p[1]! - q[1]!, p[2]! - q[2]!);
};
const chroma = (c: number[]) => Math.hypot(lab(c)[1]!, lab(c)[2]!);
/** Mean luma of a rectangle. */
const meanLuma = (rgb: Uint8Array, x0: number, y0: number, x1: number, y1: number) => {
  let s = 0;
  for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) s += luma(...(px(rgb, x, y) as [number, number, number]));
  return s / ((x1 - x0) * (y1 - y0));
};

function studio(lightAngle: number, shot = 0): Uint8Array {
  return studioBackdrop({
    width: W,
    height: H,
    horizon: 0.5,
    lightAngle,
    palette: ['#d62828'],
    productLuma: 40,
    focus: { x: 160, y: 240 },
    seed: 5,
    shot,
  });
}

describe('studioBackdrop: the sweep lit for each shot', () => {
  // The key from the left (180°); the wall is y < 160, the floor below.
  const shots = [0, 1, 2, 3].map((shot) => studio(180, shot));
  const keySide = (rgb: Uint8Array) => meanLuma(rgb, 10, 40, 50, 120) - meanLuma(rgb, 270, 40, 310, 120);
  const topOverLow = (rgb: Uint8Array) => meanLuma(rgb, 120, 5, 200, 25) - meanLuma(rgb, 120, 120, 200, 140);
  const seam = (rgb: Uint8Array) => Math.abs(meanLuma(rgb, 240, 168, 300, 174) - meanLuma(rgb, 240, 146, 300, 152));
  const haloOverCorner = (rgb: Uint8Array) => meanLuma(rgb, 140, 100, 180, 130) - meanLuma(rgb, 0, 0, 30, 30);

  it('eye level: soft, the top of the wall darker, a little brighter on the key side', () => {
    expect(topOverLow(shots[0]!)).toBeLessThan(-5);
    expect(keySide(shots[0]!)).toBeGreaterThan(3);
  });

  it('high angle: the low key rakes across the wall, bright on its side and shaded across', () => {
    expect(keySide(shots[1]!)).toBeGreaterThan(keySide(shots[0]!) + 15);
    // Shade, not burn: the key's side no brighter than the even sweep's at its brightest.
    expect(meanLuma(shots[1]!, 10, 40, 50, 120)).toBeLessThan(meanLuma(shots[0]!, 10, 40, 50, 120) + 12);
  });

  it('three-quarter: the high key lights the top of the wall; a deeper wall meets the floor at a crisp seam', () => {
    expect(topOverLow(shots[2]!)).toBeGreaterThan(5);
    expect(seam(shots[2]!)).toBeGreaterThan(seam(shots[0]!) + 8);
  });

  it('low angle: a halo behind the hero, the corners dark', () => {
    expect(haloOverCorner(shots[3]!)).toBeGreaterThan(haloOverCorner(shots[0]!) + 15);
  });

  it('takes any shot number (wrapped to 0..3)', () => {
    expect(studio(180, 5)).toEqual(shots[1]);
    expect(studio(180, -1)).toEqual(shots[3]);
  });
});

const accent = (over: Partial<AccentSpec> = {}): AccentSpec => ({
  colors: [RED],
  surface: 'sweep',
  horizon: 0.5,
  lightAngle: 20,
  focus,
  productColor: [30, 30, 30],
  seed: 1,
  ...over,
});

describe('paintAccents on the studio sweep', () => {
  it('paints the whole sweep in the brand colour, which still reads as that colour', () => {
    const rgb = studio(20);
    paintAccents(rgb, W, H, accent());
    let near = 0;
    for (let y = 0; y < H; y += 4) for (let x = 0; x < W; x += 4) if (deltaE(px(rgb, x, y), RED) <= 15) near++;
    expect(near / ((W / 4) * (H / 4))).toBeGreaterThan(0.6);
    // The wall is painted too (not a slab on the floor under a pale wall).
    expect(chroma(px(rgb, 200, 40))).toBeGreaterThan(40);
  });

  it('lights the paper: deeper toward the top of the wall, brighter on the light side, not one flat tone', () => {
    for (const [angle, brighter] of [
      [20, 'right'],
      [160, 'left'],
    ] as const) {
      const rgb = studio(angle);
      paintAccents(rgb, W, H, accent({ lightAngle: angle, focus: { ...focus, box: { ...focus.box, left: 115 } } }));
      const left = meanLuma(rgb, 5, 60, 60, 120);
      const right = meanLuma(rgb, 260, 60, 315, 120);
      expect(brighter === 'right' ? right - left : left - right).toBeGreaterThan(2);
      expect(meanLuma(rgb, 100, 2, 220, 20)).toBeLessThan(meanLuma(rgb, 100, 120, 220, 140) - 4);
      // ...on the painted wall itself.
      expect(chroma(px(rgb, 30, 90))).toBeGreaterThan(40);
      expect(chroma(px(rgb, 290, 90))).toBeGreaterThan(40);
    }
  });

  it('stands a prop beside the products that casts its own shadow: the floor is not one flat tone', () => {
    const plain = studio(150);
    const dressed = studio(150);
    paintAccents(dressed, W, H, accent({ lightAngle: 150 }));
    paintAccents(
      plain,
      W,
      H,
      accent({ lightAngle: 150, focus: { ...focus, box: { left: 20, top: 150, width: 280, height: 90 } } }),
    );
    // Beside the products (right of them), from above the floor line down to their base, a prop
    // stands out from the paper: a good share of that area is clearly darker than the bare paper.
    let darker = 0;
    let count = 0;
    for (let y = 120; y < 235; y += 2) {
      for (let x = 160; x < 310; x += 2) {
        const d =
          luma(...(px(plain, x, y) as [number, number, number])) -
          luma(...(px(dressed, x, y) as [number, number, number]));
        if (d > 12) darker++;
        count++;
      }
    }
    expect(darker / count).toBeGreaterThan(0.05);
  });
});

describe('paintAccents on a backdrop photo', () => {
  // A beige wall lit from the right, a blue vase standing in front of it, a brown floor.
  function photo(): Uint8Array {
    const rgb = new Uint8Array(W * H * 3);
    for (let y = 0; y < H; y++) {
      for (let x = 0; x < W; x++) {
        const i = (y * W + x) * 3;
        const lit = 0.8 + (0.2 * x) / W;
        const c = y < 160 ? [220 * lit, 205 * lit, 180 * lit] : [150, 105, 70];
        const vase = x >= 240 && x < 270 && y >= 100 && y < 190;
        const v = vase ? [40, 70, 170] : c;
        rgb.set(v.map(Math.round), i);
      }
    }
    return rgb;
  }
  const spec = accent({ surface: 'wall', lightAngle: 20 });

  it('paints the wall down to the floor line, keeping its light, and leaves what stands before it alone', () => {
    const rgb = photo();
    paintAccents(rgb, W, H, spec);
    expect(deltaE(px(rgb, 150, 80), RED)).toBeLessThan(20);
    expect(chroma(px(rgb, 150, 155))).toBeGreaterThan(40); // right down to the floor line
    expect(meanLuma(rgb, 200, 20, 230, 60)).toBeGreaterThan(meanLuma(rgb, 10, 20, 40, 60)); // lit from the right
    expect(px(rgb, 255, 130)).toEqual([40, 70, 170]); // the vase
    expect(px(rgb, 255, 170)).toEqual([40, 70, 170]);
    // The floor keeps its colour, warmed toward the paint right under the wall.
    expect(px(rgb, 100, 300)).toEqual([150, 105, 70]);
    const under = px(rgb, 100, 162);
    expect(under[0]! / under[1]!).toBeGreaterThan(150 / 105 + 0.05);
  });

  it('a second colour is a gel on the wall on the light side, not a block', () => {
    const blue: [number, number, number] = [40, 80, 220];
    const one = photo();
    const two = photo();
    paintAccents(one, W, H, spec);
    paintAccents(two, W, H, { ...spec, colors: [RED, blue] });
    const shift = (x: number, y: number) => px(two, x, y)[2]! - px(one, x, y)[2]!;
    expect(shift(300, 60)).toBeGreaterThan(shift(20, 60) + 4);
    expect(shift(20, 60)).toBeLessThan(8);
  });
});

describe('paintColour', () => {
  it('keeps the brand colour unless the product wears it, then takes a deeper (or, under a dark product, lighter) shade', () => {
    expect(paintColour(RED, [30, 30, 30])).toEqual(RED);
    const deeper = paintColour(RED, [200, 45, 45]);
    expect(luma(...(deeper as [number, number, number]))).toBeLessThan(luma(...RED));
    const navy: [number, number, number] = [20, 30, 90];
    const lighter = paintColour(navy, [25, 32, 80]);
    expect(luma(...(lighter as [number, number, number]))).toBeGreaterThan(luma(...navy));
  });
});

describe('separateBackdrop', () => {
  it('behind a dark product adds light: the wall brighter around the products and still its own colour', () => {
    const blue = [60, 90, 170];
    const rgb = new Uint8Array(W * H * 3);
    for (let i = 0; i < W * H; i++) rgb.set(blue, i * 3);
    const dir = separateBackdrop(rgb, W, H, 1, { ...focus, box: { left: 115, top: 150, width: 90, height: 90 } });
    expect(dir).toBe(1);
    const behind = px(rgb, 160, 100);
    expect(luma(...(behind as [number, number, number]))).toBeGreaterThan(
      luma(...(blue as [number, number, number])) + 30,
    );
    // Light, not fog: the colour keeps its chroma and hue.
    expect(chroma(behind)).toBeGreaterThan(chroma(blue) * 0.9);
    expect(behind[2]! - behind[0]!).toBeGreaterThan(blue[2]! - blue[0]!);
  });

  it('lights a pale wall behind a grey product without burning it to white', () => {
    const rgb = new Uint8Array(W * H * 3).fill(205);
    const dir = separateBackdrop(rgb, W, H, 1, { ...focus, productLuma: 120 });
    expect(dir).toBe(1);
    let brightest = 0;
    for (const v of rgb) brightest = Math.max(brightest, v);
    expect(brightest).toBeGreaterThan(220);
    expect(brightest).toBeLessThanOrEqual(237);
  });

  it('poolLight: darkens as asked, lightens toward a ceiling below white, never below the pixel', () => {
    expect(poolLight(0.5, 0.8)).toBeCloseTo(0.4, 9);
    expect(poolLight(0.2, 2)).toBeCloseTo(0.4, 9);
    expect(poolLight(0.5, 3)).toBeLessThan(0.84);
    expect(poolLight(0.5, 3)).toBeGreaterThan(0.75);
    expect(poolLight(0.95, 2)).toBe(0.95);
    for (let g = 1; g < 6; g += 0.25) expect(poolLight(0.4, g + 0.25)).toBeGreaterThanOrEqual(poolLight(0.4, g));
  });

  it('behind a light product takes light off the set, more away from the products', () => {
    const rgb = new Uint8Array(W * H * 3).fill(150);
    const dir = separateBackdrop(rgb, W, H, 1, { ...focus, productLuma: 230 });
    expect(dir).toBe(-1);
    expect(px(rgb, 300, 20)[0]).toBeLessThan(px(rgb, 95, 140)[0]!);
    expect(px(rgb, 95, 140)[0]).toBeLessThan(150);
  });
});

describe('depth of field', () => {
  it('blurs the whole wall alike, keeps the products floor row sharp, and blurs the floor more away from it', () => {
    const r = depthBlurRadii(W, H, 6, focus);
    expect(r[0]).toBeCloseTo(6, 6);
    expect(r[150]).toBeCloseTo(6, 6);
    expect(r[240]).toBeCloseTo(0, 6);
    expect(r[210]!).toBeLessThan(r[180]!);
    expect(r[270]!).toBeLessThan(r[319]!);
    expect(r[319]!).toBeLessThanOrEqual(9);
  });

  it('simplifyBackdrop calms a striped wall evenly and leaves the floor at the products sharper', () => {
    const rgb = new Uint8Array(W * H * 3);
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) rgb.fill(x % 16 < 8 ? 60 : 200, (y * W + x) * 3, (y * W + x) * 3 + 3);
    simplifyBackdrop(rgb, W, H, 1, 3, focus);
    const swing = (y: number) => {
      let lo = 255;
      let hi = 0;
      for (let x = 100; x < 220; x++) {
        lo = Math.min(lo, px(rgb, x, y)[0]!);
        hi = Math.max(hi, px(rgb, x, y)[0]!);
      }
      return hi - lo;
    };
    expect(swing(20)).toBeLessThan(60);
    expect(Math.abs(swing(20) - swing(140))).toBeLessThan(20);
    expect(swing(240)).toBeGreaterThan(swing(20) + 60);
    // On the floor, the nearer the products' row, the sharper.
    expect(swing(200)).toBeGreaterThan(swing(170) + 15);
  });
});
