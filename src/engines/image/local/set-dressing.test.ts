import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { toLinear, toSrgb } from './raster.ts';
import {
  boxFaces,
  cylinderFaces,
  defocus,
  faceLight,
  floorPoint,
  keyLight,
  noiseField,
  PROP_KINDS,
  type PropPlan,
  paintProp,
  planProp,
  polygonDistance,
  project,
  rowBlur,
  rowDepth,
  setCamera,
  sweepLight,
} from './set-dressing.ts';

const W = 800;
const H = 800;
// The products stand on row 600 over a floor line at half height.
const cam = setCamera(W, H, 0.5, 600);
const centroid = (pts: [number, number][]) => [
  pts.reduce((s, p) => s + p[0], 0) / pts.length,
  pts.reduce((s, p) => s + p[1], 0) / pts.length,
];
const face = (plan: PropPlan, name: string) => plan.faces.find((f) => f.name === name);

describe('the set camera', () => {
  it('puts the eye level above the floor line, higher for a higher floor line (a camera looking down)', () => {
    expect(cam.eyeY).toBeLessThan(cam.horizonY);
    const high = setCamera(W, H, 0.45, 600);
    const low = setCamera(W, H, 0.75, 700);
    expect(high.horizonY - high.eyeY).toBeGreaterThan(low.horizonY - low.eyeY);
  });

  it('projects the floor in perspective: rows nearer the floor line are deeper, and floorPoint inverts project', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -1, max: 1, noNaN: true }),
        fc.double({ min: 1.5, max: 3.5, noNaN: true }), // in front of the wall (at 3.6)
        (X, Z) => {
          const [x, y] = project(cam, X, 0, Z);
          const [X2, Z2] = floorPoint(cam, x, y);
          expect(X2).toBeCloseTo(X, 6);
          expect(Z2).toBeCloseTo(Z, 6);
        },
      ),
    );
    for (let y = cam.horizonY + 10; y < H; y += 10) expect(rowDepth(cam, y)).toBeLessThan(rowDepth(cam, y - 10));
  });

  it('is in focus on the products floor row, one blur over the whole wall, more blur farther from the focus', () => {
    expect(defocus(cam, 600)).toBeCloseTo(0, 9);
    const wall = defocus(cam, 0);
    expect(wall).toBeGreaterThan(0.1);
    for (const y of [50, 200, 390]) expect(defocus(cam, y)).toBeCloseTo(wall, 9);
    // Toward the wall and toward the camera, it grows with the distance from the plane of focus.
    expect(defocus(cam, 560)).toBeLessThan(defocus(cam, 500));
    expect(defocus(cam, 500)).toBeLessThan(defocus(cam, 420));
    expect(defocus(cam, 640)).toBeLessThan(defocus(cam, 720));
    expect(defocus(cam, 720)).toBeLessThan(defocus(cam, 799));
  });
});

describe('the key light', () => {
  it('lights the face that looks toward it: the left face from the left, the right from the right, the top from above', () => {
    const left = [-1, 0, 0];
    const right = [1, 0, 0];
    const top = [0, 1, 0];
    const front = [0, 0, -1];
    expect(faceLight(left, keyLight(170))).toBeGreaterThan(faceLight(right, keyLight(170)));
    expect(faceLight(right, keyLight(10))).toBeGreaterThan(faceLight(left, keyLight(10)));
    expect(faceLight(top, keyLight(90))).toBeGreaterThan(faceLight(front, keyLight(90)));
    expect(faceLight(top, keyLight(90))).toBeGreaterThan(faceLight(left, keyLight(90)));
  });

  it('lights the sweep brighter on the key side, deeper toward the top of the wall, falling off toward the camera', () => {
    for (const [angle, brighter] of [
      [20, 'right'],
      [160, 'left'],
    ] as const) {
      const light = sweepLight(cam, angle, 400);
      const l = light(80, 250);
      const r = light(720, 250);
      expect(brighter === 'right' ? r > l : l > r).toBe(true);
    }
    const light = sweepLight(cam, 90, 400);
    expect(light(400, 10)).toBeLessThan(light(400, 300) * 0.85);
    // The floor: a pool of light where the products stand, less toward the camera.
    expect(light(400, 795)).toBeLessThan(light(400, 600));
    expect(light(100, 600)).toBeLessThan(light(400, 600));
  });
});

describe('props', () => {
  const products = { left: 150, top: 380, width: 220, height: 220 }; // base on row 600, room on the right
  const spec = { avoid: products, lightAngle: 150, seed: 7 };

  it('stands a prop of every kind on the floor beside the products, behind them and clear of them', () => {
    for (const kind of PROP_KINDS) {
      const plan = planProp(cam, spec, kind)!;
      expect(plan.kind).toBe(kind);
      // On the side with room, clear of the products' box.
      expect(plan.bounds.left).toBeGreaterThan(products.left + products.width);
      // Standing on the floor between the wall and the products: its foot below the floor line,
      // above (behind) the products' base.
      const foot = Math.max(...plan.footprint.map((p) => p[1]));
      expect(foot).toBeGreaterThan(cam.horizonY);
      expect(foot).toBeLessThan(600);
      expect(plan.bounds.bottom).toBeCloseTo(foot, 0);
    }
    // No room on either side: no prop.
    expect(planProp(cam, { ...spec, avoid: { left: 60, top: 300, width: 680, height: 300 } })).toBeUndefined();
  });

  it('draws a box in perspective: its top recedes (narrower at the back, toward the eye level), its inner side shows', () => {
    const plan = planProp(cam, spec, 'block')!;
    const top = face(plan, 'top')!;
    const [fl, fr, br, bl] = top.points;
    expect(br![0] - bl![0]).toBeLessThan(fr![0] - fl![0]);
    expect(bl![1]).toBeLessThan(fl![1]);
    // Right of the view axis, the camera sees its left side; its receding edges meet the eye level.
    expect(face(plan, 'left')).toBeDefined();
    expect(face(plan, 'right')).toBeUndefined();
    const slope = (fl![0] - bl![0]) / (fl![1] - bl![1]);
    const xAtEye = fl![0] + slope * (cam.eyeY - fl![1]);
    expect(xAtEye).toBeCloseTo(W / 2, 0);
    const mirrored = planProp(cam, { ...spec, avoid: { left: 430, top: 380, width: 220, height: 220 } }, 'block')!;
    expect(face(mirrored, 'right')).toBeDefined();
    expect(mirrored.bounds.right).toBeLessThan(430);
  });

  it('shades the faces and throws the shadow as the light says', () => {
    const fromLeft = planProp(cam, { ...spec, lightAngle: 170 }, 'block')!;
    const fromRight = planProp(cam, { ...spec, lightAngle: 10 }, 'block')!;
    expect(face(fromLeft, 'left')!.light).toBeGreaterThan(face(fromRight, 'left')!.light);
    expect(face(fromLeft, 'left')!.highlight).toBeDefined();
    expect(face(fromRight, 'left')!.highlight).toBeUndefined();
    const high = planProp(cam, { ...spec, lightAngle: 90 }, 'block')!;
    expect(face(high, 'top')!.light).toBeGreaterThan(face(high, 'front')!.light);
    // The cast shadow goes away from the light.
    const foot = centroid(fromLeft.footprint)[0]!;
    expect(centroid(fromLeft.shadow)[0]).toBeGreaterThan(foot + 5);
    expect(centroid(fromRight.shadow)[0]).toBeLessThan(centroid(fromRight.footprint)[0]! - 5);
    // A higher light throws a shorter shadow.
    const spread = (p: PropPlan) => Math.max(...p.shadow.map((q) => q[0])) - Math.min(...p.shadow.map((q) => q[0]));
    expect(spread(high)).toBeLessThan(spread(fromLeft));
  });

  it('paints a prop lit from the light side, in the colour given, with a contact shadow at its foot', () => {
    const red = [214, 40, 40].map(toLinear);
    const paint = (lightAngle: number) => {
      const rgb = new Uint8Array(W * H * 3).fill(200);
      const plan = planProp(cam, { ...spec, lightAngle }, 'cylinder')!;
      paintProp(rgb, W, H, plan, red, 1, 1);
      return { rgb, plan };
    };
    for (const [angle, litSide] of [
      [160, -1],
      [20, 1],
    ] as const) {
      const { rgb, plan } = paint(angle);
      const body = face(plan, 'body')!.body!;
      const y = Math.round((plan.bounds.top + plan.bounds.bottom) / 2 + 10);
      const at = (x: number) => rgb[(y * W + Math.round(x)) * 3]!;
      const lit = at(body.cx + litSide * body.rx * 0.6);
      const dark = at(body.cx - litSide * body.rx * 0.6);
      expect(lit).toBeGreaterThan(dark + 10);
      // Still the brand's hue: red well above green and blue.
      const i = (y * W + Math.round(body.cx)) * 3;
      expect(rgb[i]!).toBeGreaterThan(2.5 * rgb[i + 1]!);
      expect(Math.abs(rgb[i + 1]! - rgb[i + 2]!)).toBeLessThan(6);
      // The floor just in front of its foot is darker than the open floor.
      const footY = Math.round(plan.bounds.bottom + 2);
      const footX = Math.round(body.cx);
      expect(rgb[(footY * W + footX) * 3]!).toBeLessThan(185);
      expect(rgb[(footY * W + 20) * 3]!).toBe(200);
    }
  });

  it('draws a cylinder with vertical sides and a top seen from above', () => {
    const [body, top] = cylinderFaces(cam, 0.6, 3.2, 0.25, 0.4, keyLight(120));
    expect(body!.name).toBe('body');
    expect(top!.name).toBe('top');
    const xs = body!.points.map((p) => p[0]);
    expect(Math.min(...xs)).toBeCloseTo(body!.body!.cx - body!.body!.rx, 6);
    expect(Math.max(...xs)).toBeCloseTo(body!.body!.cx + body!.body!.rx, 6);
    const ys = top!.points.map((p) => p[1]);
    expect(Math.max(...ys) - Math.min(...ys)).toBeGreaterThan(2); // an ellipse, not a line
  });

  it('knows inside from outside of a convex polygon', () => {
    const square: [number, number][] = [
      [0, 0],
      [10, 0],
      [10, 10],
      [0, 10],
    ];
    expect(polygonDistance(square)(5, 5)).toBeCloseTo(-5);
    expect(polygonDistance(square)(15, 5)).toBeCloseTo(5);
    expect(polygonDistance([...square].reverse())(10, 5)).toBeCloseTo(0);
  });

  it('boxFaces shows no top for a box above the camera', () => {
    const faces = boxFaces(cam, { x0: 0.2, x1: 0.5, y0: 0, y1: 1.2, z0: 3, z1: 3.3 }, keyLight(90));
    expect(faces.map((f) => f.name)).toEqual(['left', 'front']);
  });
});

describe('rowBlur and texture', () => {
  it('keeps a flat image flat (edges included) and leaves rows of radius 0 alone', () => {
    const w = 40;
    const h = 30;
    const flat = new Float32Array(w * h).fill(100);
    const radius = Float32Array.from({ length: h }, (_, y) => (y % 3) * 2.5);
    rowBlur(flat, w, h, radius);
    for (const v of flat) expect(v).toBeCloseTo(100, 3);
    // A vertical step: rows with a radius soften it, a row with none keeps it.
    const step = Float32Array.from({ length: w * h }, (_, i) => (i % w < w / 2 ? 0 : 200));
    const r = new Float32Array(h).fill(4);
    r[10] = 0;
    rowBlur(step, w, h, r, 1);
    expect(step[10 * w + w / 2 - 1]).toBe(0);
    expect(step[20 * w + w / 2 - 1]).toBeGreaterThan(40);
    expect(step[20 * w + w / 2 - 1]).toBeLessThan(160);
  });

  it('noise is deterministic, bounded and smooth', () => {
    const a = noiseField(3);
    const b = noiseField(3);
    for (let k = 0; k < 200; k++) {
      const u = k * 0.37;
      const v = k * 0.11;
      expect(a(u, v)).toBe(b(u, v));
      expect(Math.abs(a(u, v))).toBeLessThanOrEqual(1);
      expect(Math.abs(a(u + 0.01, v) - a(u, v))).toBeLessThan(0.1);
    }
  });

  it('round-trips sRGB through linear light', () => {
    for (let v = 0; v < 256; v += 5) expect(toSrgb(toLinear(v))).toBeCloseTo(v, 0);
  });
});
