import sharp from 'sharp';
import type { ImageFeatures } from '../../engines/critique/features.ts';
import type { PlacedBox } from '../../engines/image/scene-engine.ts';
import { scoreImage } from '../../engines/critique/scores.ts';
import type { Scores } from './generation.schemas.ts';

export interface PngAnalysis {
  scores: Scores;
  features: ImageFeatures;
}

/**
 * The three scores of a generated PNG and the features they come from (src/engines/critique:
 * 0..100, 50 is an ordinary product photo). `productMask` is the engine's product alpha at the
 * image's size; without it the product is estimated from the pixels. `logoBoxes` are where the
 * engine placed the brand's logo; `logoAsset` is the brand's logo file, matched against the
 * product so a logo printed on it counts (an unreadable one is ignored).
 */
export async function analyzePng(
  png: Buffer,
  o: { productMask?: Buffer | undefined; palette: string[]; logoBoxes?: PlacedBox[]; logoAsset?: Buffer | undefined },
): Promise<PngAnalysis> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const mask = o.productMask && o.productMask.length === info.width * info.height ? o.productMask : undefined;
  const logo = o.logoAsset ? await logoPixels(o.logoAsset) : undefined;
  return scoreImage(
    { data, width: info.width, height: info.height, channels: info.channels },
    {
      palette: o.palette,
      ...(mask ? { productMask: mask } : {}),
      ...(o.logoBoxes?.length ? { logoBoxes: o.logoBoxes } : {}),
      ...(logo ? { logoAsset: logo } : {}),
    },
  );
}

/** The logo file as raw RGBA, at most 256 px on its long side; undefined when it cannot be read. */
async function logoPixels(bytes: Buffer) {
  try {
    const { data, info } = await sharp(bytes, { limitInputPixels: 50_000_000 })
      .resize(256, 256, { fit: 'inside', withoutEnlargement: true })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return { data, width: info.width, height: info.height, channels: info.channels };
  } catch {
    return undefined;
  }
}
