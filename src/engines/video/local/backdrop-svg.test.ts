import { describe, expect, it } from 'vitest';
import { backdropSvg } from './backdrop-svg.ts';

describe('backdropSvg', () => {
  it('writes the wash under the light, both over the whole frame', () => {
    const svg = backdropSvg(320, 180, {
      wash: {
        x2: 0,
        y2: 1,
        stops: [
          { offset: 0, color: '#eee' },
          { offset: 0.6194444, color: '#ccc' },
          { offset: 1, color: '#aaa' },
        ],
      },
      light: {
        cx: 0.25,
        cy: 0.5,
        r: 0.8,
        stops: [{ offset: 0.9, color: 'black', opacity: 0.25 }],
      },
    });
    expect(svg).toBe(`<svg xmlns="http://www.w3.org/2000/svg" width="320" height="180">
  <defs>
    <linearGradient id="wash" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#eee"/><stop offset="0.619" stop-color="#ccc"/><stop offset="1" stop-color="#aaa"/></linearGradient>
    <radialGradient id="light" cx="0.25" cy="0.5" r="0.8"><stop offset="0.9" stop-color="black" stop-opacity="0.25"/></radialGradient>
  </defs>
  <rect width="100%" height="100%" fill="url(#wash)"/><rect width="100%" height="100%" fill="url(#light)"/>
</svg>`);
  });

  it('writes fractions to three decimals at most, with no trailing zeros', () => {
    const svg = backdropSvg(10, 10, {
      wash: { x2: 1, y2: 1, stops: [{ offset: 0.25, color: 'hsl(12,45%,78%)' }] },
      light: { cx: 0.3 + 0.4 * 0.4567, cy: 0.4, r: 0.6, stops: [{ offset: 0.5, color: '#fff', opacity: 0.1234 }] },
    });
    expect(svg).toContain('x2="1" y2="1"><stop offset="0.25" stop-color="hsl(12,45%,78%)"/></linearGradient>');
    expect(svg).toContain('cx="0.483" cy="0.4" r="0.6"><stop offset="0.5" stop-color="#fff" stop-opacity="0.123"/>');
  });
});
