/**
 * Camera motion for the local video engine (pure). The prompt's words name a move from a fixed
 * vocabulary; without one, the seed picks a gentle default deterministically. A move becomes a
 * keyframe plan: the view's zoom (≥ 1; 1 = the whole frame), the view centre's offset from the
 * frame centre (fractions of the frame's width and height) and the parallax strength (how much
 * more the product's layer moves than the backdrop, from the plan's rest pose; −1 = it holds
 * still, as when the camera circles the product), eased between keyframes. Layers at other
 * depths (floor bands) are placed by ./framing.ts.
 *
 * Every plan keeps the view inside the frame (|x| ≤ (1 − 1/zoom)/2, same for y), so the picture
 * never shows a border.
 */

export const CAMERA_MOVES = [
  'static',
  'push-in',
  'pull-out',
  'dolly',
  'orbit',
  'pan-left',
  'pan-right',
  'tilt-up',
  'tilt-down',
  'crane',
] as const;
export type CameraMove = (typeof CAMERA_MOVES)[number];

/** The moves a seed picks from when the prompt names none (gentle ones that suit a product shot). */
export const DEFAULT_MOVES: readonly CameraMove[] = ['push-in', 'pan-right', 'pan-left', 'orbit', 'dolly', 'crane'];

/**
 * Words of the prompt → move; the first phrase found in the prompt (by position) wins. Matched on
 * word boundaries, case-insensitive.
 */
const VOCABULARY: readonly [RegExp, CameraMove][] = [
  [/\b(static|locked[- ]off|still camera|no camera (?:move|motion)|tripod)\b/, 'static'],
  [/\b(push(?:es|ing)?[- ]?in|zoom(?:s|ing)?[- ]?in|punch(?:es|ing)?[- ]?in|slow zoom)\b/, 'push-in'],
  [/\b(pull(?:s|ing)?[- ]?(?:out|back)|zoom(?:s|ing)?[- ]?out)\b/, 'pull-out'],
  [/\b(dolly(?:ing)?(?:[- ]?(?:in|shot|zoom))?|dollies|tracking shot)\b/, 'dolly'],
  [/\b(orbit(?:s|ing|al)?|circl(?:e|es|ing) (?:around|the)|arc shot|turntable|360)\b/, 'orbit'],
  [/\b(pan(?:s|ning)?[- ]?left|left pan)\b/, 'pan-left'],
  [/\b(pan(?:s|ning)?[- ]?right|right pan|pan(?:s|ning)?)\b/, 'pan-right'],
  [/\b(tilt(?:s|ing)?[- ]?up|tilt(?:s|ing)?)\b/, 'tilt-up'],
  [/\b(tilt(?:s|ing)?[- ]?down)\b/, 'tilt-down'],
  [/\b(cran(?:e|es|ing)(?: shot| up| down)?|jib|boom up|rising shot|pedestal)\b/, 'crane'],
];

export interface CameraChoice {
  move: CameraMove;
  /** Where it came from: the words of the prompt or the seed's default. */
  source: 'prompt' | 'seed';
  /** The phrase that named it (absent for a seed default). */
  phrase?: string;
}

/** The move the prompt names (the earliest phrase in it), else one the seed picks. */
export function chooseCameraMove(prompt: string, seed: number): CameraChoice {
  const text = prompt.toLowerCase();
  let best: { index: number; move: CameraMove; phrase: string } | undefined;
  for (const [pattern, move] of VOCABULARY) {
    const m = pattern.exec(text);
    // Longer phrases at the same position (`tilt down` vs `tilt`) win over shorter ones.
    if (m && (!best || m.index < best.index || (m.index === best.index && m[0].length > best.phrase.length))) {
      best = { index: m.index, move, phrase: m[0] };
    }
  }
  if (best) return { move: best.move, source: 'prompt', phrase: best.phrase };
  const index = (Math.abs(Math.trunc(seed)) >>> 0) % DEFAULT_MOVES.length;
  return { move: DEFAULT_MOVES[index] as CameraMove, source: 'seed' };
}

export type Easing = 'linear' | 'ease-in-out';

/** Eased progress 0..1 for u in 0..1 (clamped). ease-in-out is a half cosine: zero speed at both ends. */
export function ease(easing: Easing, u: number): number {
  const t = Math.min(1, Math.max(0, u));
  return easing === 'linear' ? t : 0.5 - 0.5 * Math.cos(Math.PI * t);
}

export interface CameraKey {
  /** 0..1 of the clip. */
  at: number;
  zoom: number;
  /** View centre offset, fraction of the frame width (+ = the view moves right, the picture left). */
  x: number;
  /** View centre offset, fraction of the frame height (+ = the view moves down, the picture up). */
  y: number;
  /** The product layer's excursion from the rest pose = the backdrop's × (1 + parallax). */
  parallax: number;
}

export interface CameraPlan {
  move: CameraMove;
  easing: Easing;
  /** Sorted by `at`, the first at 0 and the last at 1. */
  keys: CameraKey[];
  /**
   * The pose at which every layer lines up (the start frame as it is, seen through that view):
   * layers move apart from it by their depth, so a pan's layers keep one size and part only
   * sideways, and a push-in starts on the frame exactly.
   */
  rest: { zoom: number; x: number; y: number };
}

export interface CameraPlanOptions {
  /** 0..2, default 1: scales every excursion (zoom beyond 1, offsets, parallax). */
  intensity?: number;
  easing?: Easing;
  /**
   * Where the product is: its centre's offset from the frame centre (fractions of the width and
   * height). Moves that close in (push-in, pull-out, dolly, crane) aim the near view at it, and
   * pans and tilts hold it on the other axis; always within the frame.
   */
  focus?: { x: number; y: number };
}

const key = (at: number, zoom: number, x = 0, y = 0, parallax = 0): CameraKey => ({ at, zoom, x, y, parallax });

/**
 * The keyframe plan of a move. Amplitudes are sized to read on a thumbnail: a push-in closes in
 * by a fifth, a pan crosses about an eighth of the frame, and the product moves half as much
 * again as the wall behind it (parallax 0.5); an orbit turns about the product, which holds its
 * place while the wall slides one way and the near floor the other (parallax −1).
 */
export function planCamera(move: CameraMove, opts: CameraPlanOptions = {}): CameraPlan {
  const k = Math.min(2, Math.max(0, opts.intensity ?? 1));
  const z = (amount: number) => 1 + amount * k;
  // Half the slack a zoom leaves on each side, less a little: offsets never reach the edge.
  const room = (zoom: number) => Math.max(0, (1 - 1 / zoom) / 2 - 0.004);
  const within = (v: number, zoom: number) => Math.max(-room(zoom), Math.min(room(zoom), v));
  // Aimed at the product: a layer at the product's depth moves (1 + parallax)× the camera, so
  // the camera goes that much less far for the product to end up centred.
  const aimX = (zoom: number, parallax = 0) => within((opts.focus?.x ?? 0) / (1 + parallax), zoom);
  const aimY = (zoom: number, parallax = 0) => within((opts.focus?.y ?? 0) / (1 + parallax), zoom);
  let keys: CameraKey[];
  let rest: CameraPlan['rest'];
  switch (move) {
    case 'static':
      keys = [key(0, 1), key(1, 1)];
      rest = { zoom: 1, x: 0, y: 0 };
      break;
    case 'push-in':
    case 'pull-out': {
      const zoom = z(0.22);
      const p = 0.5 * k;
      const near = key(move === 'push-in' ? 1 : 0, zoom, aimX(zoom, p), aimY(zoom, p), p);
      const wide = key(move === 'push-in' ? 0 : 1, 1, 0, 0, p);
      keys = move === 'push-in' ? [wide, near] : [near, wide];
      rest = { zoom: 1, x: 0, y: 0 };
      break;
    }
    case 'dolly': {
      // Forward and a touch up, the foreground growing faster than the wall behind.
      const zoom = z(0.18);
      const p = 0.8 * k;
      keys = [key(0, 1, 0, 0, p), key(1, zoom, aimX(zoom, p), within(aimY(zoom, p) - room(zoom) * 0.4, zoom), p)];
      rest = { zoom: 1, x: 0, y: 0 };
      break;
    }
    case 'orbit': {
      // The camera arcs around the product: the wall slides, the product holds its place (the
      // pivot), the floor in front of it slides the other way.
      const zoom = z(0.15);
      const r = room(zoom);
      const y = aimY(zoom);
      keys = [key(0, zoom, -r, y, -Math.min(1, k)), key(1, zoom, r, y, -Math.min(1, k))];
      rest = { zoom, x: 0, y };
      break;
    }
    case 'pan-left':
    case 'pan-right': {
      const zoom = z(0.14);
      const r = room(zoom) * (move === 'pan-right' ? 1 : -1);
      const y = aimY(zoom);
      keys = [key(0, zoom, -r, y, 0.5 * k), key(1, zoom, r, y, 0.5 * k)];
      rest = { zoom, x: 0, y };
      break;
    }
    case 'tilt-up':
    case 'tilt-down': {
      const zoom = z(0.14);
      const r = room(zoom) * (move === 'tilt-down' ? 1 : -1);
      const x = aimX(zoom);
      keys = [key(0, zoom, x, -r, 0.5 * k), key(1, zoom, x, r, 0.5 * k)];
      rest = { zoom, x, y: 0 };
      break;
    }
    case 'crane': {
      // Rising: the view climbs from low while easing in a little.
      const z0 = z(0.16);
      const z1 = z(0.08);
      const x = aimX(z1);
      keys = [key(0, z0, within(x, z0), room(z0), 0.5 * k), key(1, z1, x, -room(z1) * 0.5, 0.5 * k)];
      rest = { zoom: z0, x: within(x, z0), y: room(z0) };
      break;
    }
  }
  return { move, easing: opts.easing ?? 'ease-in-out', keys, rest };
}

/** The camera at u (0..1 of the clip): eased interpolation between the surrounding keys. */
export function sampleCamera(plan: CameraPlan, u: number): Omit<CameraKey, 'at'> {
  const keys = plan.keys;
  const first = keys[0] as CameraKey;
  const last = keys.at(-1) as CameraKey;
  if (u <= first.at) return { zoom: first.zoom, x: first.x, y: first.y, parallax: first.parallax };
  if (u >= last.at) return { zoom: last.zoom, x: last.x, y: last.y, parallax: last.parallax };
  let i = 0;
  while (i < keys.length - 2 && u > (keys[i + 1] as CameraKey).at) i++;
  const a = keys[i] as CameraKey;
  const b = keys[i + 1] as CameraKey;
  const p = ease(plan.easing, (u - a.at) / Math.max(1e-9, b.at - a.at));
  const lerp = (from: number, to: number) => from + (to - from) * p;
  return { zoom: lerp(a.zoom, b.zoom), x: lerp(a.x, b.x), y: lerp(a.y, b.y), parallax: lerp(a.parallax, b.parallax) };
}

/** Whether the plan moves the picture at all. */
export const isMoving = (plan: CameraPlan): boolean =>
  plan.keys.some((k, i, all) => {
    const p = all[0] as CameraKey;
    return i > 0 && (k.zoom !== p.zoom || k.x !== p.x || k.y !== p.y);
  });
