import sharp from 'sharp';
import type { ImageFeatures } from '../../engines/critique/features.ts';
import { scoreImage } from '../../engines/critique/scores.ts';
import type { Scores } from './generation.schemas.ts';

export interface PngAnalysis {
  scores: Scores;
  features: ImageFeatures;
}

/**
 * The three scores of a generated PNG and the features they come from (src/engines/critique:
 * 0..100, 50 is an ordinary product photo). `productMask` is the engine's product alpha at the
 * image's size; without it the product is estimated from the pixels.
 */
export async function analyzePng(
  png: Buffer,
  o: { productMask?: Buffer | undefined; palette: string[] },
): Promise<PngAnalysis> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const mask = o.productMask && o.productMask.length === info.width * info.height ? o.productMask : undefined;
  return scoreImage(
    { data, width: info.width, height: info.height, channels: info.channels },
    { palette: o.palette, ...(mask ? { productMask: mask } : {}) },
  );
}
