import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ASPECT_RATIOS, outputSize } from '../scene-engine.ts';
import { shotFor } from '../../environment/shot.ts';
import { computeLayout, keyFromAngle, LAYOUT_NAMES, type SceneLayout, shadowFor } from './layout.ts';

const frames = ASPECT_RATIOS.map((ar) => ({ ar, ...outputSize(ar, 1024) }));

function expectInside(l: SceneLayout) {
  for (const p of l.placements) {
    expect(p.width).toBeGreaterThanOrEqual(1);
    expect(p.height).toBeGreaterThanOrEqual(1);
    expect(p.left).toBeGreaterThanOrEqual(l.margin);
    expect(p.top).toBeGreaterThanOrEqual(l.margin);
    expect(p.left + p.width).toBeLessThanOrEqual(l.width - l.margin);
    if (!p.croppedBottom) expect(p.top + p.height).toBeLessThanOrEqual(l.height - l.margin);
    expect(p.base).toBe(p.top + p.height);
  }
}

const centre = (p: { left: number; top: number; width: number; height: number }) => [
  p.left + p.width / 2,
  p.top + p.height / 2,
];

describe('computeLayout', () => {
  it('keeps 1 to 5 products of any shape inside the frame and its margins, for every ratio and variation', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...frames),
        fc.integer({ min: 0, max: 3 }),
        fc.array(fc.double({ min: 0.15, max: 6, noNaN: true }), { minLength: 1, maxLength: 5 }),
        (frame, variationIndex, aspects) => {
          const l = computeLayout({
            width: frame.width,
            height: frame.height,
            variationIndex,
            items: aspects.map((aspect) => ({ aspect })),
          });
          expect(l.placements).toHaveLength(aspects.length);
          expect([...l.drawOrder].sort()).toEqual(aspects.map((_, i) => i));
          // The hero is drawn last (in front).
          expect(l.drawOrder.at(-1)).toBe(0);
          expectInside(l);
          // Shapes are kept (rounding aside).
          for (const [i, p] of l.placements.entries()) {
            expect(Math.abs(p.width / p.height - aspects[i]!)).toBeLessThan(aspects[i]! * 0.05 + 2 / p.height);
          }
        },
      ),
      { numRuns: 400 },
    );
  });

  it('gives four clearly different layouts for each ratio', () => {
    for (const frame of frames) {
      for (const aspect of [0.4, 1, 2.2]) {
        const layouts = [0, 1, 2, 3].map((v) =>
          computeLayout({ width: frame.width, height: frame.height, variationIndex: v, items: [{ aspect }] }),
        );
        expect(layouts.map((l) => l.name)).toEqual(LAYOUT_NAMES);
        for (let i = 0; i < 4; i++) {
          for (let j = i + 1; j < 4; j++) {
            const a = layouts[i]!.placements[0]!;
            const b = layouts[j]!.placements[0]!;
            const [ax, ay] = centre(a);
            const [bx, by] = centre(b);
            const moved = Math.hypot((ax! - bx!) / frame.width, (ay! - by!) / frame.height);
            const resized = Math.abs(a.height - b.height) / frame.height;
            expect(moved + resized, `${frame.ar} aspect ${aspect}: ${i} vs ${j}`).toBeGreaterThan(0.05);
            // Light or camera differ too.
            const la = layouts[i]!;
            const lb = layouts[j]!;
            expect(la.lightAngle !== lb.lightAngle || la.camera !== lb.camera).toBe(true);
          }
        }
        // Thirds: left of centre, right of centre.
        const cx = (v: number) => centre(layouts[v]!.placements[0]!)[0]!;
        expect(cx(1)).toBeLessThan(cx(0));
        expect(cx(2)).toBeGreaterThan(cx(0));
        // Low hero: the biggest.
        expect(layouts[3]!.placements[0]!.height).toBeGreaterThanOrEqual(layouts[0]!.placements[0]!.height);
      }
    }
  });

  it('arranges a group: hero in front and biggest, the others behind it, neighbours overlapping slightly', () => {
    for (const frame of frames) {
      for (let n = 2; n <= 5; n++) {
        for (let v = 0; v < 4; v++) {
          const l = computeLayout({
            width: frame.width,
            height: frame.height,
            variationIndex: v,
            items: Array.from({ length: n }, () => ({ aspect: 0.8 })),
          });
          const hero = l.placements[0]!;
          for (const p of l.placements.slice(1)) {
            expect(p.height).toBeLessThan(hero.height);
            expect(p.base).toBeLessThan(hero.base); // further back: stands higher in the frame
          }
          // Left to right by x: neighbours overlap, but only a little.
          const sorted = [...l.placements].sort((a, b) => a.left - b.left);
          for (let i = 1; i < sorted.length; i++) {
            const a = sorted[i - 1]!;
            const b = sorted[i]!;
            const overlap = a.left + a.width - b.left;
            expect(overlap, `${frame.ar} n=${n} v=${v}`).toBeGreaterThan(0);
            expect(overlap).toBeLessThan(Math.min(a.width, b.width) * 0.3);
          }
          // Rows: the back row is drawn before the front.
          expect(l.drawOrder.indexOf(0)).toBe(n - 1);
        }
      }
    }
  });

  it("stands the products where the variation's shot leaves room, lit and shadowed as that shot", () => {
    for (let v = 0; v < 4; v++) {
      const shot = shotFor(v);
      const l = computeLayout({ width: 1200, height: 900, variationIndex: v, items: [{ aspect: 0.7 }] });
      const [cx] = centre(l.placements[0]!);
      expect(cx! / 1200).toBeCloseTo(shot.subjectX, 1);
      // The key from the shot's side: the shadow falls the other way.
      expect(Math.sign(l.light.key.x)).toBe(-shot.light.side);
      expect(Math.sign(l.shadow.lateral)).toBe(shot.light.side);
    }
    // A high camera sees more floor than a low one.
    const high = computeLayout({ width: 1024, height: 1024, variationIndex: 1, items: [{ aspect: 1 }] });
    const low = computeLayout({ width: 1024, height: 1024, variationIndex: 3, items: [{ aspect: 1 }] });
    expect(high.horizon).toBeLessThan(low.horizon);
    expect(high.camera).toBeGreaterThan(low.camera);
  });

  it('takes the key, its quality and the camera from a backdrop maker that knows them', () => {
    const key = { x: 0.6, y: 0.7, z: 0.39 };
    const l = computeLayout({
      width: 1024,
      height: 1024,
      variationIndex: 0,
      items: [{ aspect: 1 }],
      hints: { horizon: 0.6, lightAngle: 49, light: { key, hardness: 0.9, temperature: 0.5, fill: 0.2 }, camera: 0.7 },
    });
    expect(l.light.key).toEqual(key);
    expect(l.camera).toBe(0.7);
    expect(l.shadow).toEqual(shadowFor({ key, hardness: 0.9, temperature: 0.5, fill: 0.2 }, 0.7));
    expect(l.shadow.lateral).toBeLessThan(0);
  });

  it('follows the backdrop: its floor line and light win, products stand in front of the floor line', () => {
    const l = computeLayout({
      width: 1024,
      height: 768,
      variationIndex: 1,
      items: [{ aspect: 0.5 }],
      hints: { horizon: 0.62, lightAngle: 30 },
    });
    expect(l.horizon).toBe(0.62);
    expect(l.lightAngle).toBe(30);
    expect(l.placements[0]!.base).toBeGreaterThan(0.62 * 768);
    // Light from the right: the shadow falls to the left.
    expect(l.shadow.lateral).toBeLessThan(0);
    expectInside(l);
  });

  it('stands the products in the near foreground of a photo that came as it is, still inside the frame', () => {
    const input = {
      width: 1024,
      height: 768,
      items: [{ aspect: 1.4 }, { aspect: 0.6 }],
      hints: { horizon: 0.6, lightAngle: 90 },
    };
    let moved = 0;
    for (let v = 0; v < 4; v++) {
      const own = computeLayout({ ...input, variationIndex: v });
      const near = computeLayout({ ...input, variationIndex: v, standAt: 0.9 });
      expect(near.placements[0]!.base).toBeGreaterThanOrEqual(Math.min(0.9 * 768, 768 - near.margin) - 1);
      expect(near.placements[0]!.base).toBeGreaterThanOrEqual(own.placements[0]!.base);
      if (near.placements[0]!.base > own.placements[0]!.base + 20) moved++;
      expect(near.horizon).toBe(own.horizon);
      expectInside(near);
    }
    expect(moved).toBeGreaterThanOrEqual(2);
    // Not a number: the shot's own floor.
    expect(computeLayout({ ...input, variationIndex: 0, standAt: Number.NaN })).toEqual(
      computeLayout({ ...input, variationIndex: 0 }),
    );
  });

  it('stands a product cut at the bottom of its own image on the frame edge', () => {
    const l = computeLayout({
      width: 1024,
      height: 1024,
      variationIndex: 2,
      items: [{ aspect: 1.2, croppedBottom: true }],
    });
    const p = l.placements[0]!;
    expect(p.top + p.height).toBe(1024);
    expect(p.croppedBottom).toBe(true);
    expect(p.left).toBeGreaterThanOrEqual(l.margin);
    expect(p.top).toBeGreaterThanOrEqual(l.margin);
  });

  it('is pure and wraps variation indices', () => {
    const input = { width: 900, height: 600, variationIndex: 6, items: [{ aspect: 1 }, { aspect: 2 }] };
    expect(computeLayout(input)).toEqual(computeLayout(input));
    expect(computeLayout(input).name).toBe('thirds-right');
    expect(() => computeLayout({ ...input, width: 4 })).toThrow(RangeError);
  });
});

describe('shadowFor', () => {
  const light = (x: number, y: number, z: number, hardness = 0.5, fill = 0.3) => {
    const n = Math.hypot(x, y, z);
    return { key: { x: x / n, y: y / n, z: z / n }, hardness, temperature: 0, fill };
  };

  it('casts away from the key: sideways by its side, back when it stands in front, longer when it is low', () => {
    expect(shadowFor(light(-1, 1, 0.3), 0.4).lateral).toBeGreaterThan(0); // key on the left → to the right
    expect(shadowFor(light(1, 1, 0.3), 0.4).lateral).toBeLessThan(0);
    expect(Math.abs(shadowFor(light(0, 1, 0.3), 0.4).lateral)).toBeLessThan(0.01);
    expect(Math.abs(shadowFor(light(-1, 0.5, 0.3), 0.4).lateral)).toBeGreaterThan(
      Math.abs(shadowFor(light(-1, 1.5, 0.3), 0.4).lateral),
    );
    expect(shadowFor(light(-1, 1, 0.5), 0.4).depth).toBeGreaterThan(0); // key in front → behind
    expect(shadowFor(light(-1, 1, -0.5), 0.4).depth).toBeLessThan(0); // backlit → toward the camera
    // A low camera sees the floor flatter.
    expect(shadowFor(light(-1, 1, 0.5), 0.15).depth).toBeLessThan(shadowFor(light(-1, 1, 0.5), 0.8).depth);
  });

  it('is crisper and hides more of a hard key, and always has a deep contact', () => {
    const hard = shadowFor(light(-1, 1, 0.3, 0.9), 0.4);
    const soft = shadowFor(light(-1, 1, 0.3, 0.1), 0.4);
    expect(hard.softness).toBeLessThan(soft.softness);
    expect(hard.opacity).toBeGreaterThan(soft.opacity);
    expect(Math.min(hard.contact, soft.contact)).toBeGreaterThanOrEqual(0.7);
  });

  it('agrees with the port light angle through keyFromAngle', () => {
    for (const angle of [20, 45, 70, 110, 135, 160]) {
      const key = keyFromAngle(angle, 0.5);
      expect(Math.hypot(key.x, key.y, key.z)).toBeCloseTo(1, 6);
      const s = shadowFor({ key, hardness: 0.5, temperature: 0, fill: 0.3 }, 0.4);
      // 0 = from the right: the shadow falls left; 180 = from the left: it falls right.
      expect(Math.sign(s.lateral), `angle ${angle}`).toBe(angle < 90 ? -1 : 1);
      expect(s.depth).toBeGreaterThan(0);
    }
    expect(Math.abs(keyFromAngle(90, 0.5).x)).toBeLessThan(1e-9);
  });
});
