import type { Sharp } from 'sharp';

export interface ThumbnailOptions {
  /** Long edge in pixels (never enlarged past the source). Default 512. */
  size?: number;
  /** Default `webp` (keeps transparency); `jpeg` flattens onto white. */
  format?: 'webp' | 'jpeg';
  /** Encoder quality 1..100. Default 80. */
  quality?: number;
  /** Write the thumbnail here instead of returning its bytes. */
  path?: string;
}

export interface Thumbnail {
  format: 'webp' | 'jpeg';
  mimeType: 'image/webp' | 'image/jpeg';
  width: number;
  height: number;
  bytes: number;
  /** The encoded thumbnail, unless it was written to `path`. */
  buffer?: Buffer;
  path?: string;
}

export const DEFAULT_THUMBNAIL_SIZE = 512;

/** Encodes `image` (any sharp input: a decoded raster, a PNG frame) as the thumbnail. */
export async function encodeThumbnail(image: Sharp, opts: ThumbnailOptions = {}): Promise<Thumbnail> {
  const size = opts.size ?? DEFAULT_THUMBNAIL_SIZE;
  const format = opts.format ?? 'webp';
  const quality = opts.quality ?? 80;
  let pipeline = image.resize(size, size, { fit: 'inside', withoutEnlargement: true });
  pipeline =
    format === 'jpeg'
      ? pipeline.flatten({ background: '#ffffff' }).jpeg({ quality, mozjpeg: true })
      : pipeline.webp({ quality });
  const mimeType = format === 'jpeg' ? 'image/jpeg' : 'image/webp';
  if (opts.path) {
    const info = await pipeline.toFile(opts.path);
    return { format, mimeType, width: info.width, height: info.height, bytes: info.size, path: opts.path };
  }
  const { data, info } = await pipeline.toBuffer({ resolveWithObject: true });
  return { format, mimeType, width: info.width, height: info.height, bytes: data.length, buffer: data };
}
