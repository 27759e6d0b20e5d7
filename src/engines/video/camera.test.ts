import { describe, expect, it } from 'vitest';
import { CAMERA_MOVES, chooseCameraMove, DEFAULT_MOVES, ease, isMoving, planCamera, sampleCamera } from './camera.ts';

describe('chooseCameraMove', () => {
  it.each([
    ['Slow push-in on the bottle', 'push-in'],
    ['zoom in gently', 'push-in'],
    ['a dolly shot across the table', 'dolly'],
    ['camera orbits around the sneaker', 'orbit'],
    ['360 turntable of the watch', 'orbit'],
    ['pan left over the shelf', 'pan-left'],
    ['Panning right across the set', 'pan-right'],
    ['a slow pan', 'pan-right'],
    ['tilt up to reveal the logo', 'tilt-up'],
    ['tilt down onto the cap', 'tilt-down'],
    ['crane shot rising over the set', 'crane'],
    ['static locked-off shot', 'static'],
    ['pull back to reveal the room', 'pull-out'],
  ])('%s → %s', (prompt, move) => {
    const c = chooseCameraMove(prompt, 1);
    expect(c.move).toBe(move);
    expect(c.source).toBe('prompt');
  });

  it('takes the earliest named move, and a longer phrase at the same place', () => {
    expect(chooseCameraMove('orbit, then push in', 0).move).toBe('orbit');
    expect(chooseCameraMove('push in, then orbit', 0).move).toBe('push-in');
    expect(chooseCameraMove('tilt down', 0).move).toBe('tilt-down');
  });

  it('does not read moves inside other words', () => {
    expect(chooseCameraMove('a pancake on a plate, a tiltrotor, expanded', 0).source).toBe('seed');
  });

  it('without one, picks a default from the seed, deterministically', () => {
    const picks = new Set<string>();
    for (let seed = 0; seed < 24; seed++) {
      const a = chooseCameraMove('a bottle on a marble table', seed);
      expect(a).toEqual(chooseCameraMove('a bottle on a marble table', seed));
      expect(a.source).toBe('seed');
      expect(DEFAULT_MOVES).toContain(a.move);
      picks.add(a.move);
    }
    expect(picks.size).toBe(DEFAULT_MOVES.length);
    expect(DEFAULT_MOVES).toContain(chooseCameraMove('', -7).move);
  });
});

describe('easing', () => {
  it('ease-in-out starts and ends at rest, is symmetric and monotone', () => {
    expect(ease('ease-in-out', 0)).toBe(0);
    expect(ease('ease-in-out', 1)).toBeCloseTo(1, 12);
    expect(ease('ease-in-out', 0.5)).toBeCloseTo(0.5, 12);
    expect(ease('ease-in-out', 0.01)).toBeLessThan(0.001);
    expect(ease('ease-in-out', 0.25) + ease('ease-in-out', 0.75)).toBeCloseTo(1, 12);
    let prev = -1;
    for (let u = 0; u <= 1.0001; u += 0.01) {
      const v = ease('ease-in-out', u);
      expect(v).toBeGreaterThanOrEqual(prev);
      prev = v;
    }
    expect(ease('linear', 0.3)).toBe(0.3);
    expect(ease('linear', 2)).toBe(1);
  });
});

describe('planCamera', () => {
  it.each(CAMERA_MOVES)('%s keeps the view inside the frame at every moment', (move) => {
    for (const intensity of [0.5, 1, 2]) {
      const plan = planCamera(move, { intensity });
      expect(plan.keys[0]?.at).toBe(0);
      expect(plan.keys.at(-1)?.at).toBe(1);
      for (let u = 0; u <= 1; u += 0.05) {
        const c = sampleCamera(plan, u);
        expect(c.zoom).toBeGreaterThanOrEqual(1);
        const room = (1 - 1 / c.zoom) / 2 + 1e-9;
        expect(Math.abs(c.x)).toBeLessThanOrEqual(room);
        expect(Math.abs(c.y)).toBeLessThanOrEqual(room);
      }
    }
  });

  it('moves as named', () => {
    const at = (move: Parameters<typeof planCamera>[0], u: number) => sampleCamera(planCamera(move), u);
    expect(at('push-in', 1).zoom).toBeGreaterThan(at('push-in', 0).zoom);
    expect(at('pull-out', 1).zoom).toBeLessThan(at('pull-out', 0).zoom);
    expect(at('pan-right', 1).x).toBeGreaterThan(at('pan-right', 0).x);
    expect(at('pan-left', 1).x).toBeLessThan(at('pan-left', 0).x);
    expect(at('tilt-up', 1).y).toBeLessThan(at('tilt-up', 0).y);
    expect(at('tilt-down', 1).y).toBeGreaterThan(at('tilt-down', 0).y);
    expect(at('crane', 1).y).toBeLessThan(at('crane', 0).y);
    expect(at('orbit', 1).x).toBeGreaterThan(at('orbit', 0).x);
    expect(at('orbit', 0.5).parallax).toBeLessThan(0); // the product moves against the backdrop
    expect(isMoving(planCamera('static'))).toBe(false);
    for (const m of CAMERA_MOVES.filter((m) => m !== 'static')) expect(isMoving(planCamera(m))).toBe(true);
  });

  it('moves enough to read on a thumbnail: a push-in closes in by a fifth, a pan crosses a tenth of the frame', () => {
    const push = planCamera('push-in');
    expect(push.keys.at(-1)!.zoom).toBeGreaterThanOrEqual(1.2);
    expect(push.keys.at(-1)!.parallax).toBeGreaterThanOrEqual(0.5);
    const pan = planCamera('pan-right');
    expect(pan.keys.at(-1)!.x - pan.keys[0]!.x).toBeGreaterThanOrEqual(0.1);
    const orbit = planCamera('orbit');
    expect(orbit.keys.at(-1)!.x - orbit.keys[0]!.x).toBeGreaterThanOrEqual(0.1);
    expect(orbit.keys[0]!.parallax).toBe(-1); // the product is the pivot
  });

  it('rests where the layers line up: where a push-in starts and a pull-out ends, mid-way on a pan', () => {
    expect(planCamera('push-in').rest).toEqual({ zoom: 1, x: 0, y: 0 });
    expect(planCamera('pull-out').rest).toEqual({ zoom: 1, x: 0, y: 0 });
    expect(planCamera('pull-out').keys.at(-1)).toMatchObject({ zoom: 1, x: 0, y: 0 });
    const pan = planCamera('pan-left');
    expect(pan.rest).toEqual({ zoom: pan.keys[0]!.zoom, x: 0, y: 0 });
    const crane = planCamera('crane');
    expect(crane.rest).toEqual({ zoom: crane.keys[0]!.zoom, x: crane.keys[0]!.x, y: crane.keys[0]!.y });
  });

  it('aims at the product: a push-in ends with the product centred, a pan holds it on the other axis, within the frame', () => {
    const focus = { x: 0.05, y: -0.04 };
    const push = planCamera('push-in', { focus });
    const end = push.keys.at(-1)!;
    // The product's layer moves (1 + parallax)× the camera: it ends at the focus.
    expect(end.x * (1 + end.parallax)).toBeCloseTo(focus.x, 6);
    expect(end.y * (1 + end.parallax)).toBeCloseTo(focus.y, 6);
    expect(planCamera('pan-right', { focus }).keys.map((k) => k.y)).toEqual([focus.y, focus.y]);
    expect(planCamera('tilt-up', { focus }).keys.map((k) => k.x)).toEqual([focus.x, focus.x]);
    const far = planCamera('push-in', { focus: { x: 0.4, y: 0.4 } }).keys.at(-1)!;
    const room = (1 - 1 / far.zoom) / 2;
    expect(Math.abs(far.x)).toBeLessThanOrEqual(room);
    expect(Math.abs(far.y)).toBeLessThanOrEqual(room);
  });

  it('is eased: slow at the ends, fastest in the middle', () => {
    const plan = planCamera('pan-right');
    const step = (u: number) => sampleCamera(plan, u + 0.01).x - sampleCamera(plan, u).x;
    expect(step(0)).toBeLessThan(step(0.495) / 10);
    expect(step(0.99)).toBeLessThan(step(0.495) / 10);
    expect(sampleCamera({ ...plan, easing: 'linear' }, 0.25).x).toBeCloseTo(
      plan.keys[0]!.x + (plan.keys[1]!.x - plan.keys[0]!.x) * 0.25,
    );
  });

  it('samples plans with more than two keys piecewise', () => {
    const plan = {
      move: 'push-in' as const,
      easing: 'linear' as const,
      keys: [
        { at: 0, zoom: 1, x: 0, y: 0, parallax: 0 },
        { at: 0.5, zoom: 1.2, x: 0, y: 0, parallax: 0 },
        { at: 1, zoom: 1.1, x: 0, y: 0, parallax: 0 },
      ],
      rest: { zoom: 1, x: 0, y: 0 },
    };
    expect(sampleCamera(plan, 0.25).zoom).toBeCloseTo(1.1);
    expect(sampleCamera(plan, 0.75).zoom).toBeCloseTo(1.15);
    expect(sampleCamera(plan, -1).zoom).toBe(1);
    expect(sampleCamera(plan, 2).zoom).toBe(1.1);
  });
});
