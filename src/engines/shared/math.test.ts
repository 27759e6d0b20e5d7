import { describe, expect, it } from 'vitest';
import { clamp, clamp01, smooth01, smoothstep } from './math.ts';

describe('scalar helpers', () => {
  it('clamps into a range', () => {
    expect(clamp(5, 0, 3)).toBe(3);
    expect(clamp(-1, 0, 3)).toBe(0);
    expect(clamp01(0.25)).toBe(0.25);
    expect(clamp01(2)).toBe(1);
  });

  it('smoothstep is 0 below, 1 above, ½ halfway, and flat at both ends', () => {
    expect(smoothstep(2, 4, 1)).toBe(0);
    expect(smoothstep(2, 4, 5)).toBe(1);
    expect(smoothstep(2, 4, 3)).toBe(0.5);
    expect(smoothstep(0, 1, 0.01)).toBeLessThan(0.001);
    expect(smooth01(0.3)).toBe(smoothstep(0, 1, 0.3));
    // A falling edge when e0 > e1.
    expect(smoothstep(1, 0, 0.25)).toBeCloseTo(1 - smoothstep(0, 1, 0.25), 12);
  });
});
