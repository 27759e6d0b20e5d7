import sharp from 'sharp';
import { type Cutout, cutOutProduct } from '../local/cutout.ts';
import { computeLayout } from '../local/layout.ts';
import { type EngineWarning, GenerationError, type PlacedBox, type SceneRequest } from '../scene-engine.ts';

/**
 * The inputs of a product-in-scene workflow: the real products cut out (local/cutout.ts) and
 * placed as the local engine places them for the variation (local/layout.ts: the preset's
 * placement, scale and floor line; a refinement's layout levers), on a canvas of the generation
 * size, and the mask of what the model is to generate.
 *
 * - `canvas`: opaque RGB PNG, the products over a neutral grey (the inpainting nodes grey the
 *   masked area out anyway, nodes.py InpaintModelConditioning/VAEEncodeForInpaint);
 * - `mask`: greyscale PNG, white = generate (the background), black = keep (the products), the
 *   products' soft edges in between; a `LoadImageMask` node with `channel: "red"` reads it as is
 *   (nodes.py LoadImageMask: only the alpha channel is inverted);
 * - `alpha`: the products' coverage (1 byte per pixel), and their boxes, at the canvas size.
 */
export interface ProductCanvas {
  canvas: Buffer;
  mask: Buffer;
  alpha: Buffer;
  width: number;
  height: number;
  boxes: PlacedBox[];
  warnings: EngineWarning[];
}

/** At most this many products in one scene (the layout arranges five). */
export const MAX_CANVAS_PRODUCTS = 5;

const NEUTRAL = { r: 128, g: 128, b: 128 };

export async function productCanvas(req: SceneRequest, width: number, height: number): Promise<ProductCanvas> {
  if (req.products.length > MAX_CANVAS_PRODUCTS) {
    throw new GenerationError(`A scene takes at most ${MAX_CANVAS_PRODUCTS} products.`);
  }
  const warnings: EngineWarning[] = [];
  const cutoutSide = Math.max(512, Math.min(2048, Math.max(width, height)));
  const cutouts: Cutout[] = await Promise.all(req.products.map((p) => cutOutProduct(p.bytes, { maxSide: cutoutSide })));
  for (const [i, c] of cutouts.entries()) {
    for (const w of c.warnings) warnings.push({ ...w, message: `Product ${i + 1}: ${w.message}` });
  }

  let rgba = Buffer.alloc(width * height * 4);
  const boxes: PlacedBox[] = [];
  if (cutouts.length > 0) {
    const layout = computeLayout({
      width,
      height,
      variationIndex: req.steering?.baseLayout ?? req.variationIndex,
      ...(req.steering?.placement ? { preset: req.steering.placement } : {}),
      ...(req.steering?.scale !== undefined ? { scale: req.steering.scale } : {}),
      // No backdrop hints: the backdrop is not what the model draws behind the product.
      items: cutouts.map((c) => ({ aspect: c.width / c.height, croppedBottom: c.touches.bottom })),
    });
    const layers = await Promise.all(
      layout.drawOrder.map(async (i) => {
        const c = cutouts[i] as Cutout;
        const p = layout.placements[i] as PlacedBox;
        const w = Math.min(p.width, width);
        const h = Math.min(p.height, height);
        const input = await sharp(c.rgba, { raw: { width: c.width, height: c.height, channels: 4 } })
          .resize(w, h, { fit: 'fill', kernel: 'lanczos3' })
          .png()
          .toBuffer();
        return {
          input,
          left: Math.max(0, Math.min(p.left, width - w)),
          top: Math.max(0, Math.min(p.top, height - h)),
        };
      }),
    );
    for (const p of layout.placements) boxes.push({ left: p.left, top: p.top, width: p.width, height: p.height });
    rgba = await sharp({ create: { width, height, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } } })
      .composite(layers)
      .raw()
      .toBuffer();
  }

  const alpha = Buffer.alloc(width * height);
  const generate = Buffer.alloc(width * height);
  for (let i = 0; i < alpha.length; i++) {
    const a = rgba[i * 4 + 3] as number;
    alpha[i] = a;
    generate[i] = 255 - a;
  }
  const canvas = await sharp(rgba, { raw: { width, height, channels: 4 } })
    .flatten({ background: NEUTRAL })
    .png()
    .toBuffer();
  const mask = await sharp(generate, { raw: { width, height, channels: 1 } })
    .toColourspace('b-w')
    .png()
    .toBuffer();
  return { canvas, mask, alpha, width, height, boxes, warnings };
}

/** The generation size: the request's aspect, at most `maxPixels`, both sides multiples of `multiple`. */
export function generationSize(
  width: number,
  height: number,
  o: { maxPixels: number; multiple: number },
): { width: number; height: number } {
  const scale = Math.min(1, Math.sqrt(o.maxPixels / (width * height)));
  const m = o.multiple;
  const round = (v: number) => Math.max(m, Math.round((v * scale) / m) * m);
  return { width: round(width), height: round(height) };
}
