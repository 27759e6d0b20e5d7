import { describe, expect, it } from 'vitest';
import { archSdf, type Hit, intersectSolids, type Ray, type Solid, solidOcclusion, solidShadow } from './props.ts';

const cylinder: Solid = { kind: 'cylinder', x: 0, z: 100, h: 30, rx: 10, rz: 10, yaw: 0, accent: false };
const block: Solid = { kind: 'block', x: 0, z: 100, h: 20, rx: 15, rz: 8, yaw: 0.3, accent: true };
const hit = (): Hit => ({ t: 0, nx: 0, ny: 0, nz: 0, u: 0, v: 0, solid: -1 });
type Vec3 = [number, number, number];
/** The ray from `o` along `d`. */
const ray = ([ox, oy, oz]: Vec3, [dx, dy, dz]: Vec3): Ray => ({ ox, oy, oz, dx, dy, dz });

describe('intersectSolids', () => {
  it('hits a cylinder on the side facing the ray, with an outward normal, and misses beside and above it', () => {
    const h = hit();
    expect(intersectSolids([cylinder], ray([0, 15, 0], [0, 0, 1]), 1e6, h)).toBe(true);
    expect(h.t).toBeCloseTo(90, 6);
    expect([h.nx, h.ny, h.nz].map((v) => Math.round(v * 1000) / 1000)).toEqual([0, 0, -1]);
    expect(intersectSolids([cylinder], ray([20, 15, 0], [0, 0, 1]), 1e6, hit())).toBe(false);
    expect(intersectSolids([cylinder], ray([0, 40, 0], [0, 0, 1]), 1e6, hit())).toBe(false);
    // From above: the top cap.
    expect(intersectSolids([cylinder], ray([0, 100, 100], [0, -1, 0]), 1e6, h)).toBe(true);
    expect([h.t, h.ny]).toEqual([70, 1]);
  });

  it('takes the nearest of several solids and turns a block with its yaw', () => {
    const near: Solid = { ...block, z: 60, yaw: 0 };
    const h = hit();
    expect(intersectSolids([cylinder, near], ray([0, 10, 0], [0, 0, 1]), 1e6, h)).toBe(true);
    expect(h.solid).toBe(1);
    expect(h.t).toBeCloseTo(60 - 8, 6);
    expect(h.nz).toBeCloseTo(-1, 6);
    // A turned block's front face leans by its yaw.
    expect(intersectSolids([block], ray([0, 10, 0], [0, 0, 1]), 1e6, h)).toBe(true);
    expect(Math.atan2(-h.nx, -h.nz)).toBeCloseTo(-0.3, 6);
  });
});

describe('solidShadow', () => {
  const light = { x: -150, y: 80, z: 85 };
  const shade = (qx: number, qz = 100, r = 10) => solidShadow([block], qx, 0, qz, light.x, light.y, light.z, r);

  it('shades the floor on the side away from the light, not the side toward it', () => {
    expect(shade(-40)).toBe(0);
    expect(shade(30)).toBeGreaterThan(0.95);
    expect(shade(90)).toBe(0); // beyond the shadow's end
  });

  it('has a penumbra that widens with distance and a soft light', () => {
    // Across the shadow's edge (in depth) near the block and far from it.
    const partial = (qx: number, r: number) =>
      [90, 104, 108, 112, 116, 120].map((qz) => solidShadow([block], qx, 0, qz, light.x, light.y, light.z, r));
    const count = (xs: number[]) => xs.filter((v) => v > 0.05 && v < 0.95).length;
    expect(count(partial(35, 30))).toBeGreaterThan(count(partial(35, 2)));
  });

  it('shades the wall behind a prop when the light is in front of it', () => {
    const wallPoint = solidShadow([cylinder], 25, 20, 160, -60, 40, 20, 5);
    const open = solidShadow([cylinder], -60, 20, 160, -60, 40, 20, 5);
    expect(wallPoint).toBeGreaterThan(0.5);
    expect(open).toBe(0);
  });
});

describe('solidOcclusion and archSdf', () => {
  it('darkens the floor at a foot, fading away from it', () => {
    const at = solidOcclusion([cylinder], 10.5, 100);
    const near = solidOcclusion([cylinder], 14, 100);
    const far = solidOcclusion([cylinder], 60, 100);
    expect(at).toBeLessThan(near);
    expect(near).toBeLessThan(far);
    expect(far).toBeGreaterThan(0.99);
    expect(at).toBeGreaterThan(0.4);
  });

  it('is negative inside an arch (the rectangle and its crown) and positive outside', () => {
    expect(archSdf(0, 10, 0, 20, 80)).toBeLessThan(0);
    expect(archSdf(0, 75, 0, 20, 80)).toBeLessThan(0);
    expect(archSdf(0, 85, 0, 20, 80)).toBeGreaterThan(0);
    expect(archSdf(25, 10, 0, 20, 80)).toBeCloseTo(5, 6);
    expect(archSdf(19, 78, 0, 20, 80)).toBeGreaterThan(0); // cut off by the round crown
  });
});
