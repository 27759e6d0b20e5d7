/** Scalar helpers the engines share. */

export const clamp = (v: number, lo: number, hi: number): number => Math.min(hi, Math.max(lo, v));

export const clamp01 = (v: number): number => Math.min(1, Math.max(0, v));

/** Hermite smoothstep: 0 at or below `e0`, 1 at or above `e1`, an S-curve between. */
export function smoothstep(e0: number, e1: number, x: number): number {
  const t = clamp01((x - e0) / (e1 - e0));
  return t * t * (3 - 2 * t);
}

/** smoothstep over 0..1. */
export const smooth01 = (t: number): number => smoothstep(0, 1, t);
