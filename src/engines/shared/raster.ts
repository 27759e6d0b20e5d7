/** Raster helpers the engine families share. */

/**
 * The bounding box (`l`..`r`, `t`..`b`, inclusive) of the pixels of a `w`×`h` grid that `keep`
 * (given the pixel's index) accepts; undefined when it accepts none.
 */
export function boundsWhere(
  w: number,
  h: number,
  keep: (i: number) => boolean,
): { l: number; t: number; r: number; b: number } | undefined {
  let l = w;
  let t = h;
  let r = -1;
  let b = -1;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      if (!keep(y * w + x)) continue;
      if (x < l) l = x;
      if (x > r) r = x;
      if (y < t) t = y;
      if (y > b) b = y;
    }
  }
  return r < 0 ? undefined : { l, t, r, b };
}
