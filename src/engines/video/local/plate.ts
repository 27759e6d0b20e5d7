/**
 * Rasters of a still's layers in the output picture's px: the source's plate and product layer
 * scaled by the framing (../framing.ts `Fit`) and cut to a rectangle of the picture. Past the
 * source's edge the plate is extended as more of the same set (see `plateIn`) and the product
 * layer is clear.
 */
import sharp from 'sharp';
import { smooth01 } from '../../shared/math.ts';
import type { Fit, Rect } from '../framing.ts';

export interface Raster {
  data: Buffer;
  width: number;
  height: number;
  channels: 3 | 4;
}

/** How far an extended plate blends into its blur (px): a few per cent of the frame. */
export const extensionReach = (width: number, height: number) =>
  Math.max(4, Math.round(0.06 * Math.max(width, height)));

/** The source scaled by the fit, as a raster and where it lies in the picture. */
async function scaled(src: Raster, fit: Fit): Promise<{ raster: Raster; left: number; top: number }> {
  const width = Math.max(1, Math.round(src.width * fit.scale));
  const height = Math.max(1, Math.round(src.height * fit.scale));
  const data =
    width === src.width && height === src.height
      ? src.data
      : await sharp(src.data, { raw: { width: src.width, height: src.height, channels: src.channels } })
          .resize(width, height, { fit: 'fill', kernel: width < src.width ? 'lanczos3' : 'mitchell' })
          .raw()
          .toBuffer();
  return {
    raster: { data, width, height, channels: src.channels },
    left: Math.round(fit.left),
    top: Math.round(fit.top),
  };
}

/** The scaled source's part inside `rect` and how far `rect` reaches past it on each side (≥ 0). */
function overlap(pic: { raster: Raster; left: number; top: number }, rect: Rect) {
  const x0 = Math.max(rect.left, pic.left);
  const y0 = Math.max(rect.top, pic.top);
  const x1 = Math.min(rect.left + rect.width, pic.left + pic.raster.width);
  const y1 = Math.min(rect.top + rect.height, pic.top + pic.raster.height);
  return {
    inside: { left: x0 - pic.left, top: y0 - pic.top, width: Math.max(0, x1 - x0), height: Math.max(0, y1 - y0) },
    pad: {
      left: x0 - rect.left,
      top: y0 - rect.top,
      right: rect.left + rect.width - x1,
      bottom: rect.top + rect.height - y1,
    },
  };
}

/**
 * The plate (RGB) over `rect` of the picture. Where `rect` reaches past the source, the plate
 * goes on as more of the same set: mirrored at the seam (its texture continues), blending over
 * `reach` px into the source's edge drawn out and softened (its colours and lines continue, out of
 * focus), so no seam shows and nothing is copied far from where it was.
 */
export async function plateIn(src: Raster, fit: Fit, rect: Rect, reach: number): Promise<Buffer> {
  const pic = await scaled(src, fit);
  const { inside, pad } = overlap(pic, rect);
  if (inside.width < 1 || inside.height < 1) throw new RangeError('the plate does not reach the layer');
  const raw = { width: pic.raster.width, height: pic.raster.height, channels: src.channels };
  const cut = await sharp(pic.raster.data, { raw }).extract(inside).removeAlpha().raw().toBuffer();
  if (pad.left === 0 && pad.top === 0 && pad.right === 0 && pad.bottom === 0) return cut;
  const own = { raw: { width: inside.width, height: inside.height, channels: 3 as const } };
  const [mirrored, drawn] = await Promise.all([
    sharp(cut, own)
      .extend({ ...pad, extendWith: 'mirror' })
      .raw()
      .toBuffer(),
    sharp(cut, own)
      .blur(Math.max(1, reach / 2))
      .extend({ ...pad, extendWith: 'copy' })
      .raw()
      .toBuffer(),
  ]);
  const soft = await sharp(drawn, { raw: { width: rect.width, height: rect.height, channels: 3 } })
    .blur(Math.max(1, reach / 3))
    .raw()
    .toBuffer();
  const x0 = pad.left;
  const y0 = pad.top;
  const x1 = pad.left + inside.width;
  const y1 = pad.top + inside.height;
  for (let y = 0; y < rect.height; y++) {
    const dy = y < y0 ? y0 - y : y >= y1 ? y - y1 + 1 : 0;
    for (let x = 0; x < rect.width; x++) {
      const dx = x < x0 ? x0 - x : x >= x1 ? x - x1 + 1 : 0;
      if (dx === 0 && dy === 0) continue;
      const w = smooth01(Math.hypot(dx, dy) / reach);
      const i = (y * rect.width + x) * 3;
      for (let c = 0; c < 3; c++) {
        mirrored[i + c] = Math.round((mirrored[i + c] as number) * (1 - w) + (soft[i + c] as number) * w);
      }
    }
  }
  return mirrored;
}

/**
 * The product layer (RGBA) over `rect` of the picture, clear past the source. Clear pixels take
 * the colour of `plate` (RGB over `plateRect`) where it is known, so a resampled edge blends
 * toward the set behind, not toward black.
 */
export async function layerIn(src: Raster, fit: Fit, rect: Rect, plate: Buffer, plateRect: Rect): Promise<Buffer> {
  const pic = await scaled(src, fit);
  const { inside, pad } = overlap(pic, rect);
  const out = Buffer.alloc(rect.width * rect.height * 4);
  if (inside.width >= 1 && inside.height >= 1) {
    const raw = { width: pic.raster.width, height: pic.raster.height, channels: 4 as const };
    const cut = await sharp(pic.raster.data, { raw }).extract(inside).raw().toBuffer();
    for (let y = 0; y < inside.height; y++) {
      cut.copy(out, ((y + pad.top) * rect.width + pad.left) * 4, y * inside.width * 4, (y + 1) * inside.width * 4);
    }
  }
  for (let y = 0; y < rect.height; y++) {
    const py = rect.top + y - plateRect.top;
    if (py < 0 || py >= plateRect.height) continue;
    for (let x = 0; x < rect.width; x++) {
      const o = (y * rect.width + x) * 4;
      if ((out[o + 3] as number) > 0) continue;
      const px = rect.left + x - plateRect.left;
      if (px < 0 || px >= plateRect.width) continue;
      const p = (py * plateRect.width + px) * 3;
      out[o] = plate[p] as number;
      out[o + 1] = plate[p + 1] as number;
      out[o + 2] = plate[p + 2] as number;
    }
  }
  return out;
}
