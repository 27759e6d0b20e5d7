import { describe, expect, it } from 'vitest';
import type { SetLight } from '../scene-engine.ts';
import { backdropStats } from './backdrop.ts';
import {
  composite,
  edgeSoftness,
  keyShares,
  PHOTO_KEY,
  relighter,
  sigmaOfRatio,
  silhouetteNormals,
  softenEdge,
} from './composite.ts';
import type { Cutout } from './cutout.ts';
import { computeLayout, keyFromAngle } from './layout.ts';

const fromLeft: SetLight = { key: keyFromAngle(150, 0.5), hardness: 0.6, temperature: 0, fill: 0.3 };
const unit = (x: number, y: number, z: number): [number, number, number] => {
  const n = Math.hypot(x, y, z);
  return [x / n, y / n, z / n];
};
const gainOf = (n: [number, number, number], light: SetLight, strength?: number) => {
  const out = new Float32Array(3);
  relighter(light, strength)(...n, out);
  return [...out];
};
const lum = (g: number[]) => 0.2126 * g[0]! + 0.7152 * g[1]! + 0.0722 * g[2]!;

describe('relighter', () => {
  it("brightens the side facing the scene's key and darkens the side away from it", () => {
    const left = lum(gainOf(unit(-1, 0, 0.3), fromLeft));
    const front = lum(gainOf(unit(0, 0, 1), fromLeft));
    const right = lum(gainOf(unit(1, 0, 0.3), fromLeft));
    expect(left).toBeGreaterThan(front);
    expect(front).toBeGreaterThan(right);
    expect(left).toBeGreaterThan(1);
    expect(right).toBeLessThan(0.8);
    // The photo's own light leaves a surface facing it about as it was when the scene's key is the same.
    const same = { ...fromLeft, key: PHOTO_KEY };
    expect(lum(gainOf(unit(0.2, 0.3, 1), same))).toBeCloseTo(1, 5);
    expect(gainOf(unit(1, 0, 0.3), fromLeft, 0)).toEqual([1, 1, 1]);
  });

  it("tints by the key's colour temperature: warm toward red where lit, the shade cooler", () => {
    const warm = { ...fromLeft, temperature: 1 };
    const lit = gainOf(unit(-1, 0.3, 0.3), warm);
    expect(lit[0]!).toBeGreaterThan(lit[2]! * 1.1);
    const cool = gainOf(unit(-1, 0.3, 0.3), { ...fromLeft, temperature: -1 });
    expect(cool[2]!).toBeGreaterThan(cool[0]!);
    const shade = gainOf(unit(1, -0.2, 0.1), warm);
    expect(shade[2]! / shade[0]!).toBeGreaterThan(lit[2]! / lit[0]!);
  });
});

describe('keyShares', () => {
  it('is what a cast shadow takes: less with more fill, a cooler shade under a warm key', () => {
    const [r, g, b] = keyShares({ ...fromLeft, temperature: 0.8 });
    expect(r).toBeGreaterThan(b);
    expect(g).toBeGreaterThan(0.5);
    expect(keyShares({ ...fromLeft, fill: 0.6 })[1]).toBeLessThan(keyShares({ ...fromLeft, fill: 0.2 })[1]);
  });
});

describe('silhouetteNormals', () => {
  it('turns a disc into a dome: edges lean outward, the middle faces the camera', () => {
    const w = 101;
    const alpha = new Float32Array(w * w);
    for (let y = 0; y < w; y++) for (let x = 0; x < w; x++) alpha[y * w + x] = Math.hypot(x - 50, y - 50) <= 40 ? 1 : 0;
    const n = silhouetteNormals(alpha, w, w);
    const at = (x: number, y: number) => [n[(y * w + x) * 3]!, n[(y * w + x) * 3 + 1]!, n[(y * w + x) * 3 + 2]!];
    expect(at(12, 50)[0]).toBeLessThan(-0.4); // left edge leans left
    expect(at(88, 50)[0]).toBeGreaterThan(0.4);
    expect(at(50, 12)[1]).toBeGreaterThan(0.4); // top edge leans up
    expect(at(50, 50)[2]).toBeGreaterThan(0.97);
  });
});

describe('edges', () => {
  it('maps the difference ratio to a blur, monotonic', () => {
    expect(sigmaOfRatio(1)).toBe(0);
    expect(sigmaOfRatio(0.592)).toBeCloseTo(1, 6);
    expect(sigmaOfRatio(0.4)).toBe(3);
    expect(sigmaOfRatio(0.7)).toBeLessThan(sigmaOfRatio(0.6));
  });

  it('softens an edge inward only', () => {
    const w = 20;
    const alpha = new Float32Array(w * w);
    for (let i = 0; i < alpha.length; i++) alpha[i] = i % w < 10 ? 1 : 0;
    const soft = softenEdge(alpha, w, w, 2);
    for (let i = 0; i < alpha.length; i++) expect(soft[i]!).toBeLessThanOrEqual(alpha[i]!);
    expect(soft[5 * w + 9]!).toBeLessThan(0.9);
    expect(soft[5 * w + 2]!).toBe(1);
    expect(softenEdge(alpha, w, w, 0.4)).toBe(alpha);
  });

  it('reads a blurred backdrop as softer than the product, a sharp one as not', () => {
    const W = 200;
    const H = 200;
    let s = 9;
    const rand = () => {
      s = (s * 1103515245 + 12345) >>> 0;
      return s / 4294967296;
    };
    // Tiles of random greys, 5 px (sharp edges, flat insides), for the backdrop and the product alike.
    const tiles = new Float32Array(41 * 41).map(() => Math.round(60 + 140 * rand()));
    const tile = (x: number, y: number) => tiles[Math.floor(y / 5) * 41 + Math.floor(x / 5)]!;
    const sharpBg = new Uint8Array(W * H * 3);
    for (let y = 0; y < H; y++)
      for (let x = 0; x < W; x++) sharpBg.fill(tile(x, y), (y * W + x) * 3, (y * W + x) * 3 + 3);
    // The same backdrop, box-blurred (radius 1, twice each way: σ about 1.2).
    const blurred = Uint8Array.from(sharpBg);
    for (let pass = 0; pass < 4; pass++) {
      const src = Uint8Array.from(blurred);
      for (let y = 0; y < H; y++) {
        for (let x = 0; x < W; x++) {
          let sum = 0;
          for (let d = -1; d <= 1; d++) {
            const xx = pass % 2 ? x : Math.min(W - 1, Math.max(0, x + d));
            const yy = pass % 2 ? Math.min(H - 1, Math.max(0, y + d)) : y;
            sum += src[(yy * W + xx) * 3]!;
          }
          blurred.fill(Math.round(sum / 3), (y * W + x) * 3, (y * W + x) * 3 + 3);
        }
      }
    }
    const pw = 60;
    const ph = 80;
    const rgba = Buffer.alloc(pw * ph * 4);
    const alpha = new Float32Array(pw * ph).fill(1);
    for (let y = 0; y < ph; y++)
      for (let x = 0; x < pw; x++) rgba.set([tile(x + 3, y), tile(x + 3, y), tile(x + 3, y), 255], (y * pw + x) * 4);
    const p = { left: 70, top: 60, width: pw, height: ph, base: 140, row: 0, croppedBottom: false };
    expect(edgeSoftness(sharpBg, W, H, p, { rgba, alpha }, 0)).toBeLessThan(0.15);
    expect(edgeSoftness(blurred, W, H, p, { rgba, alpha }, 0)).toBeGreaterThan(0.6);
  });
});

describe('composite', () => {
  /** A white, opaque block (a product) on a flat, light floor. */
  async function render(lightAngle: number) {
    const W = 240;
    const H = 240;
    const backdrop = new Uint8Array(W * H * 3).fill(200);
    const pw = 60;
    const ph = 100;
    const rgba = Buffer.alloc(pw * ph * 4);
    for (let i = 0; i < pw * ph; i++) rgba.set([235, 235, 235, 255], i * 4);
    const cut = { rgba, width: pw, height: ph, touches: { top: false, right: false, bottom: false, left: false } };
    const layout = computeLayout({
      width: W,
      height: H,
      variationIndex: 0,
      items: [{ aspect: pw / ph }],
      hints: {
        horizon: 0.5,
        lightAngle,
        light: { key: keyFromAngle(lightAngle, 0.5), hardness: 0.8, temperature: 0, fill: 0.3 },
      },
    });
    const out = await composite({
      width: W,
      height: H,
      backdrop,
      stats: backdropStats(backdrop, W, H),
      layout,
      products: [cut as unknown as Cutout],
      seed: 3,
      glossy: false,
    });
    const p = layout.placements[0]!;
    const mean = (x0: number, x1: number, y0: number, y1: number) => {
      let s = 0;
      let n = 0;
      for (let y = Math.round(y0); y < Math.round(y1); y++) {
        for (let x = Math.round(x0); x < Math.round(x1); x++) {
          s += out.rgb[(y * W + x) * 3 + 1]!;
          n++;
        }
      }
      return s / n;
    };
    return { p, mean };
  }

  it('lights the product from the key and casts its shadow the other way', async () => {
    for (const angle of [150, 30]) {
      const { p, mean } = await render(angle);
      const midY = [p.top + p.height * 0.3, p.top + p.height * 0.7] as const;
      const leftEdge = mean(p.left + 1, p.left + 6, ...midY);
      const rightEdge = mean(p.left + p.width - 6, p.left + p.width - 1, ...midY);
      // Beside the base, on the floor, left and right of the product.
      const floorY = [p.base - 6, p.base - 1] as const;
      const leftFloor = mean(p.left - 30, p.left - 5, ...floorY);
      const rightFloor = mean(p.left + p.width + 5, p.left + p.width + 30, ...floorY);
      if (angle > 90) {
        expect(leftEdge, 'key from the left: the left edge is brighter').toBeGreaterThan(rightEdge + 10);
        expect(rightFloor, 'and the shadow falls right').toBeLessThan(leftFloor - 20);
      } else {
        expect(rightEdge).toBeGreaterThan(leftEdge + 10);
        expect(leftFloor).toBeLessThan(rightFloor - 20);
      }
      // The contact shadow under the base is deep.
      expect(mean(p.left + p.width * 0.3, p.left + p.width * 0.7, p.base, p.base + 2)).toBeLessThan(200 * 0.7);
    }
  });
});
