/**
 * The SVG of a plain lit backdrop (pure): a linear gradient over the whole frame, with a radial
 * light laid over it. The text-only gradient and the studio sweep a bare product is staged on are
 * both one.
 */

export interface GradientStop {
  /** Where along the gradient (0 .. 1). */
  offset: number;
  /** Any SVG colour (`#fff`, `rgb(…)`, `hsl(…)`). */
  color: string;
  /** 0 .. 1; opaque when left out. */
  opacity?: number;
}

export interface LitBackdrop {
  /** The ground: a linear gradient from the frame's top left corner towards (x2, y2), in fractions of the frame. */
  wash: { x2: number; y2: number; stops: readonly GradientStop[] };
  /** The light over it: a radial gradient centred at (cx, cy), of radius r, in fractions of the frame. */
  light: { cx: number; cy: number; r: number; stops: readonly GradientStop[] };
}

/** Fractions are written to three decimals at most (`0.5`, `0.62`, `1`). */
const num = (n: number): string => String(Number(n.toFixed(3)));

const stops = (list: readonly GradientStop[]): string =>
  list
    .map(
      (s) =>
        `<stop offset="${num(s.offset)}" stop-color="${s.color}"${s.opacity === undefined ? '' : ` stop-opacity="${num(s.opacity)}"`}/>`,
    )
    .join('');

/** The backdrop as a `width` × `height` SVG document. */
export function backdropSvg(width: number, height: number, { wash, light }: LitBackdrop): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <defs>
    <linearGradient id="wash" x1="0" y1="0" x2="${num(wash.x2)}" y2="${num(wash.y2)}">${stops(wash.stops)}</linearGradient>
    <radialGradient id="light" cx="${num(light.cx)}" cy="${num(light.cy)}" r="${num(light.r)}">${stops(light.stops)}</radialGradient>
  </defs>
  <rect width="100%" height="100%" fill="url(#wash)"/><rect width="100%" height="100%" fill="url(#light)"/>
</svg>`;
}
