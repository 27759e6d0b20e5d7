import { describe, expect, it } from 'vitest';
import { elevationOf, lightAngleOf, lightColor, openSide, shotFor } from './shot.ts';

describe('shotFor', () => {
  const shots = [0, 1, 2, 3].map(shotFor);

  it("gives four shots that differ as a photographer's would, not only in where the product stands", () => {
    for (let i = 0; i < 4; i++) {
      for (let j = i + 1; j < 4; j++) {
        const a = shots[i]!;
        const b = shots[j]!;
        const differs = [
          Math.abs(a.camera - b.camera) >= 0.1 || Math.abs(a.horizonShift - b.horizonShift) >= 0.04, // camera height
          Math.abs(a.yaw - b.yaw) >= 4 || Math.abs(a.lens - b.lens) >= 0.15, // floor angle, lens
          a.light.side !== b.light.side || Math.abs(a.light.elevation - b.light.elevation) >= 10, // light direction
          Math.abs(a.light.hardness - b.light.hardness) >= 0.1 || Math.abs(a.light.front - b.light.front) >= 0.1, // quality
          a.props.map((p) => p.kind).join() !== b.props.map((p) => p.kind).join(), // set dressing
        ].filter(Boolean).length;
        expect(differs, `shots ${i} and ${j}`).toBeGreaterThanOrEqual(4);
      }
    }
    // High, eye level, a little low, near the floor: the floor line moves down the frame.
    const byCamera = [...shots].sort((a, b) => b.camera - a.camera);
    for (let i = 1; i < 4; i++) expect(byCamera[i]!.horizonShift).toBeGreaterThan(byCamera[i - 1]!.horizonShift);
    // The key from both sides; two shots lit from one side differ in camera and crop.
    expect(shots.map((s) => s.light.side)).toEqual([-1, 1, 1, -1]);
    for (const [a, b] of [
      [0, 3],
      [1, 2],
    ].map(([i, j]) => [shots[i!]!, shots[j!]!] as const)) {
      expect(Math.abs(a.horizonShift - b.horizonShift)).toBeGreaterThanOrEqual(0.1);
      expect(a.subjectX !== b.subjectX || a.lens !== b.lens).toBe(true);
    }
  });

  it('dresses every shot with a prop the brand colour can go on, and wraps the index', () => {
    for (const s of shots) expect(s.props.some((p) => p.accent && p.kind !== 'arch')).toBe(true);
    expect(shotFor(6)).toBe(shotFor(2));
    expect(shotFor(-1)).toBe(shotFor(3));
    expect(shotFor(Number.NaN)).toBe(shotFor(0));
  });
});

describe('light helpers', () => {
  it('turn a side and an elevation into the port angle and back', () => {
    expect(lightAngleOf(1, 30)).toBe(150);
    expect(lightAngleOf(-1, 30)).toBe(30);
    for (const [side, elevation] of [
      [1, 20],
      [-1, 65],
      [1, 80],
    ] as const) {
      expect(elevationOf(lightAngleOf(side, elevation))).toEqual({ elevation, side });
    }
    expect(elevationOf(90)).toEqual({ elevation: 90, side: 0 });
  });

  it('leaves the open side away from a product on a third, else away from the light', () => {
    expect(openSide(1 / 3, 1)).toBe(1);
    expect(openSide(2 / 3, -1)).toBe(-1);
    expect(openSide(0.5, 1)).toBe(1);
    expect(openSide(0.5, -1)).toBe(-1);
  });

  it('colours a warm light toward red and a cool one toward blue, at about the same luminance', () => {
    const warm = lightColor(1, 1);
    const cool = lightColor(-1, 1);
    expect(warm[0]).toBeGreaterThan(warm[2]);
    expect(cool[2]).toBeGreaterThan(cool[0]);
    for (const c of [warm, cool, lightColor(0, 1)])
      expect(0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]).toBeCloseTo(1, 6);
  });
});
