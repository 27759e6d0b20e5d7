import sharp from 'sharp';
import { scoreImage } from '../../engines/critique/scores.ts';
import type { Scores } from './generation.schemas.ts';

/**
 * The three scores of a generated PNG, from its pixels (src/engines/critique: 0..100, 50 is an
 * ordinary product photo). `productMask` is the engine's product alpha at the image's size.
 */
export async function scorePng(
  png: Buffer,
  o: { productMask?: Buffer | undefined; palette: string[] },
): Promise<Scores> {
  const { data, info } = await sharp(png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const mask = o.productMask && o.productMask.length === info.width * info.height ? o.productMask : undefined;
  const { scores } = scoreImage(
    { data, width: info.width, height: info.height, channels: info.channels },
    { palette: o.palette, ...(mask ? { productMask: mask } : {}) },
  );
  return scores;
}
