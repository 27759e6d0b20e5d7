/**
 * A scene's layers for the video engine: the clean plate (the backdrop exactly as the
 * products went onto it) and the product layer, everything the compositing added to it (the
 * products, their contact and cast shadows, a reflection) as one RGBA layer, such that the layer
 * over the plate gives the scene back (up to rounding).
 */
import sharp from 'sharp';
import type { SceneResult } from '../scene-engine.ts';

/**
 * The product layer from the scene (`rgb`), its plate and the products' alpha (`mask`), all
 * width × height. Outside the products a pixel darker than the plate is a shadow: its alpha the
 * darkening by luma (1 − F/B); inside, the mask. Each pixel's alpha is then raised as far as its
 * colour needs to stay within 0..255, so `over(layer, plate) == rgb`; its colour is solved from
 * that alpha. Where nothing was added the layer is clear (0, 0, 0, 0).
 */
export function productLayer(
  rgb: Uint8Array,
  plate: Uint8Array,
  mask: Uint8Array,
  width: number,
  height: number,
): Buffer {
  const n = width * height;
  if (rgb.length !== n * 3 || plate.length !== n * 3 || mask.length !== n) {
    throw new RangeError('productLayer: the scene, plate and mask must all be width × height');
  }
  const out = Buffer.alloc(n * 4);
  for (let i = 0; i < n; i++) {
    const o = i * 3;
    const m = (mask[i] as number) / 255;
    if (m === 0 && rgb[o] === plate[o] && rgb[o + 1] === plate[o + 1] && rgb[o + 2] === plate[o + 2]) continue;
    let lf = 0;
    let lb = 0;
    // The least alpha each channel needs: a darker pixel needs (B − F)/B, a lighter one (F − B)/(255 − B).
    let need = 0;
    for (let c = 0; c < 3; c++) {
      const f = rgb[o + c] as number;
      const b = plate[o + c] as number;
      const w = c === 0 ? 0.299 : c === 1 ? 0.587 : 0.114;
      lf += w * f;
      lb += w * b;
      if (f < b) need = Math.max(need, (b - f) / b);
      else if (f > b) need = Math.max(need, (f - b) / (255 - b));
    }
    const shade = lf < lb && lb > 0 ? 1 - lf / lb : 0;
    // Alpha is stored in 8 bits: rounded up, so the colour solved from it stays in range.
    const a8 = Math.min(255, Math.ceil(Math.max(m + (1 - m) * shade, need) * 255 - 1e-6));
    if (a8 <= 0) continue;
    const a = a8 / 255;
    for (let c = 0; c < 3; c++) {
      const f = rgb[o + c] as number;
      const b = plate[o + c] as number;
      const v = (f - (1 - a) * b) / a;
      out[i * 4 + c] = v <= 0 ? 0 : v >= 255 ? 255 : Math.round(v);
    }
    out[i * 4 + 3] = a8;
  }
  return out;
}

/** The scene's layers as PNGs (SceneResult.layers); `horizon` is the floor line, a fraction of the height. */
export async function sceneLayers(
  rgb: Uint8Array,
  plate: Uint8Array,
  mask: Uint8Array,
  width: number,
  height: number,
  horizon: number,
): Promise<NonNullable<SceneResult['layers']>> {
  const layer = productLayer(rgb, plate, mask, width, height);
  const [platePng, productPng] = await Promise.all([
    sharp(plate, { raw: { width, height, channels: 3 } })
      .png({ compressionLevel: 1 })
      .toBuffer(),
    sharp(layer, { raw: { width, height, channels: 4 } })
      .png({ compressionLevel: 1 })
      .toBuffer(),
  ]);
  return { plate: platePng, product: productPng, horizon };
}
