import sharp from 'sharp';
import { cutOutProduct } from '../../image/local/cutout.ts';
import { backdropSvg } from './backdrop-svg.ts';

/**
 * A start frame that is a bare product photo (a cut-out with transparency, or a packshot on a
 * plain background) is not a scene: moved as it is, its transparent pixels turn black and a
 * cover-fit to another aspect ratio cuts the product off. Such a frame is staged first: the
 * product, whole, on a soft studio sweep (a wall falling into a floor, lit from above), standing
 * on a contact shadow, fitted inside the output frame with margins whatever its aspect ratio. The
 * set and the product with its shadow come back as layers too, so the parallax moves put the
 * product on its own layer over the clean set.
 */

export interface StagedFrame {
  png: Buffer;
  /** The set alone (PNG, RGB), the product with its shadow (PNG, RGBA) and the floor line (a fraction of the height). */
  layers: { plate: Buffer; product: Buffer; horizon: number };
  /** Why it was staged, for the warning. */
  reason: 'transparent' | 'plain-background';
}

/** Share of the border ring within `tolerance` of its median colour for a "plain" background. */
const PLAIN_SHARE = 0.9;
const PLAIN_TOLERANCE = 22;
/** Share of (nearly) transparent pixels that makes a cut-out. */
const TRANSPARENT_SHARE = 0.05;

/** Whether `bytes` is a bare product photo, and why (pure measurement on a small copy). */
export async function bareProductReason(bytes: Buffer): Promise<StagedFrame['reason'] | undefined> {
  const { data, info } = await sharp(bytes, { limitInputPixels: 100_000_000 })
    .autoOrient()
    .resize(96, 96, { fit: 'inside' })
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const n = info.width * info.height;
  let clear = 0;
  for (let i = 0; i < n; i++) if ((data[i * 4 + 3] as number) < 16) clear++;
  if (clear / n >= TRANSPARENT_SHARE) return 'transparent';
  return plainBorder(data, info.width, info.height) ? 'plain-background' : undefined;
}

/** The outer ring (3 px of a 96 px copy) is one flat colour. */
export function plainBorder(rgba: Uint8Array, width: number, height: number, ring = 3): boolean {
  const px: number[][] = [];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      if (x >= ring && y >= ring && x < width - ring && y < height - ring) continue;
      const i = (y * width + x) * 4;
      px.push([rgba[i] as number, rgba[i + 1] as number, rgba[i + 2] as number]);
    }
  }
  const median = [0, 1, 2].map((c) => px.map((p) => p[c] as number).sort((a, b) => a - b)[px.length >> 1] as number);
  const near = px.filter((p) => p.every((v, c) => Math.abs(v - (median[c] as number)) <= PLAIN_TOLERANCE)).length;
  return near / px.length >= PLAIN_SHARE;
}

/** Where the product goes in a `width` × `height` frame (pure): fitted inside with margins, standing low. */
export function stagePlacement(
  productWidth: number,
  productHeight: number,
  width: number,
  height: number,
): { left: number; top: number; width: number; height: number; floorY: number } {
  const scale = Math.min((width * 0.62) / productWidth, (height * 0.66) / productHeight);
  const w = Math.max(1, Math.round(productWidth * scale));
  const h = Math.max(1, Math.round(productHeight * scale));
  const base = Math.round(height * 0.86);
  return { left: Math.round((width - w) / 2), top: base - h, width: w, height: h, floorY: Math.round(height * 0.62) };
}

/** The staged frame, or undefined when `bytes` is already a scene (not a bare product photo). */
export async function stageBareProduct(bytes: Buffer, width: number, height: number): Promise<StagedFrame | undefined> {
  const reason = await bareProductReason(bytes);
  if (!reason) return undefined;
  const cut = await cutOutProduct(bytes);
  if (cut.confidence < 0.5 || cut.width < 4 || cut.height < 4) return undefined;
  const place = stagePlacement(cut.width, cut.height, width, height);
  const product = await sharp(cut.rgba, { raw: { width: cut.width, height: cut.height, channels: 4 } })
    .resize(place.width, place.height, { kernel: 'lanczos3' })
    .raw()
    .toBuffer();

  // The product's mean colour tints the set a little, so a red cap does not sit on a cold grey.
  let r = 0;
  let g = 0;
  let b = 0;
  let wsum = 0;
  for (let i = 0; i < place.width * place.height; i++) {
    const a = (product[i * 4 + 3] as number) / 255;
    r += (product[i * 4] as number) * a;
    g += (product[i * 4 + 1] as number) * a;
    b += (product[i * 4 + 2] as number) * a;
    wsum += a;
  }
  const tint = (v: number, base: number) => Math.round(base * 0.9 + (wsum ? v / wsum : base) * 0.1);
  const wallTop = `rgb(${tint(r, 238)},${tint(g, 235)},${tint(b, 230)})`;
  const wallLow = `rgb(${tint(r, 214)},${tint(g, 210)},${tint(b, 204)})`;
  const floorNear = `rgb(${tint(r, 196)},${tint(g, 191)},${tint(b, 184)})`;
  const fy = place.floorY;
  const sweep = backdropSvg(width, height, {
    wash: {
      x2: 0,
      y2: 1,
      stops: [
        { offset: 0, color: wallTop },
        { offset: fy / height, color: wallLow },
        { offset: 1, color: floorNear },
      ],
    },
    light: {
      cx: 0.5,
      cy: 0.35,
      r: 0.7,
      stops: [
        { offset: 0, color: '#ffffff', opacity: 0.35 },
        { offset: 1, color: '#000000', opacity: 0.12 },
      ],
    },
  });
  const shadowW = Math.round(place.width * 0.9);
  const shadowH = Math.max(4, Math.round(place.height * 0.08));
  const blur = Math.max(2, Math.round(shadowH * 0.5));
  const shadow = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
  <ellipse cx="${width / 2}" cy="${place.top + place.height - shadowH * 0.15}" rx="${shadowW / 2}" ry="${shadowH / 2}" fill="#000" fill-opacity="0.38"/>
</svg>`;
  const shadowPng = await sharp(Buffer.from(shadow)).blur(blur).png().toBuffer();
  const productPng = await sharp(product, { raw: { width: place.width, height: place.height, channels: 4 } })
    .png()
    .toBuffer();
  const plate = await sharp(Buffer.from(sweep)).removeAlpha().png().toBuffer();
  const layer = await sharp({ create: { width, height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
    .composite([
      { input: shadowPng, blend: 'over' },
      { input: productPng, left: place.left, top: place.top },
    ])
    .png()
    .toBuffer();
  const png = await sharp(plate)
    .composite([{ input: layer }])
    .removeAlpha()
    .png()
    .toBuffer();
  return { png, layers: { plate, product: layer, horizon: fy / height }, reason };
}
