import sharp from 'sharp';
import { type EngineWarning, GenerationError } from './scene-engine.ts';

/**
 * How an input image (a product, a backdrop, a video frame) reaches a provider that takes images
 * by reference, in the order the providers' own documents prefer:
 *
 * 1. a short-lived link to the bytes in our own storage (InputHost), when this server has an
 *    address the provider can reach (a public ATELIER_PUBLIC_URL, or a public S3 endpoint);
 * 2. else the provider's own upload API (fal storage, Replicate files, Runway uploads);
 * 3. else a data URI, only where the provider documents them, and never longer than its
 *    documented limit: PNG when it fits, else JPEG at a decreasing quality and size, with an
 *    `INPUT_DEGRADED` warning saying what was sent;
 * 4. else a non-retryable GenerationError that says what to configure.
 */

/** Our side of (1): publishes bytes under a short-lived link, or says it has no public address. */
export interface InputHost {
  /**
   * A GET URL a provider on the internet can fetch `bytes` from for at least `ttlSeconds`, or
   * undefined when this server has no address such a provider can reach.
   */
  publish(bytes: Buffer, o: { contentType: string; ttlSeconds: number }): Promise<string | undefined>;
}

export type DataUriType = 'image/png' | 'image/jpeg' | 'image/webp';

export interface InputRoute {
  /** The provider's name in messages ("Runway"). */
  label: string;
  /** Our public links. */
  host?: InputHost | undefined;
  /** How long the provider may take before it fetches the input (queues). Default 6 h. */
  linkTtlSeconds?: number;
  /** The provider's upload API: the bytes in, the reference the provider takes (URL or URI) out. */
  upload?: (bytes: Buffer, file: { name: string; contentType: string }) => Promise<string>;
  /** Data URIs, when the provider documents them: the longest URI (characters, prefix included). */
  dataUri?: { maxChars: number };
}

export interface PreparedInput {
  /** What goes into the request: a URL, a provider URI (`runway://…`) or a data URI. */
  ref: string;
  /** How it was sent, for tests and logs. */
  via: 'link' | 'upload' | 'data-uri';
}

/** JPEG steps tried, in order, when a PNG data URI is over the limit: quality, then long side. */
const DEGRADE_STEPS: { quality: number; scale: number }[] = [
  { quality: 92, scale: 1 },
  { quality: 85, scale: 1 },
  { quality: 85, scale: 0.75 },
  { quality: 80, scale: 0.5 },
  { quality: 75, scale: 0.35 },
];

const dataUri = (type: DataUriType, bytes: Buffer) => `data:${type};base64,${bytes.toString('base64')}`;

/** An input image as PNG, auto-oriented and at most `maxSide` px on its long side. */
export async function toPngInput(bytes: Buffer, what: string, maxSide = 2048): Promise<Buffer> {
  try {
    return await sharp(bytes, { limitInputPixels: 100_000_000 })
      .rotate()
      .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
      .png()
      .toBuffer();
  } catch (err) {
    throw new GenerationError(`The ${what} could not be read as an image`, false, { cause: err });
  }
}

/** Characters of a base64 data URI of `n` bytes. */
export const dataUriLength = (type: string, n: number) => `data:${type};base64,`.length + 4 * Math.ceil(n / 3);

/**
 * The reference a provider gets for one input image. `png` is the prepared image (see
 * toPngInput); `what` names it in messages and warnings ("start frame").
 */
export async function prepareInput(
  png: Buffer,
  what: string,
  route: InputRoute,
  warnings: EngineWarning[],
): Promise<PreparedInput> {
  if (route.host) {
    const url = await route.host.publish(png, {
      contentType: 'image/png',
      ttlSeconds: route.linkTtlSeconds ?? 6 * 3600,
    });
    if (url) return { ref: url, via: 'link' };
  }
  if (route.upload) {
    return {
      ref: await route.upload(png, { name: `${what.replace(/\W+/g, '-')}.png`, contentType: 'image/png' }),
      via: 'upload',
    };
  }
  if (route.dataUri) {
    const max = route.dataUri.maxChars;
    if (dataUriLength('image/png', png.length) <= max) return { ref: dataUri('image/png', png), via: 'data-uri' };
    const meta = await sharp(png).metadata();
    const side = Math.max(meta.width ?? 1, meta.height ?? 1);
    for (const step of DEGRADE_STEPS) {
      const longSide = Math.max(64, Math.round(side * step.scale));
      const jpeg = await sharp(png)
        .resize({ width: longSide, height: longSide, fit: 'inside', withoutEnlargement: true })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality: step.quality, mozjpeg: true })
        .toBuffer();
      if (dataUriLength('image/jpeg', jpeg.length) <= max) {
        warnings.push({
          code: 'INPUT_DEGRADED',
          severity: 'warning',
          message: `The ${what} was sent to ${route.label} as a JPEG (quality ${step.quality}, ${longSide} px long side) to stay under its ${formatChars(max)} data-URI limit; give this server a public address (ATELIER_PUBLIC_URL) to send it by link at full quality`,
        });
        return { ref: dataUri('image/jpeg', jpeg), via: 'data-uri' };
      }
    }
    throw new GenerationError(
      `The ${what} is too large for ${route.label}'s ${formatChars(max)} data-URI limit`,
      false,
    );
  }
  throw new GenerationError(
    `${route.label} takes the ${what} by URL, and this server has no address it can reach: set ATELIER_PUBLIC_URL to this server's public https address (or use S3 storage with a public endpoint), or ATELIER_INPUT_LINKS=on if it is reachable already`,
    false,
  );
}

/** Reads any image as the PNG providers get (oriented, bounded), then prepares its reference. */
export async function imageInput(
  bytes: Buffer,
  what: string,
  route: InputRoute,
  warnings: EngineWarning[],
  maxSide = 2048,
): Promise<string> {
  return (await prepareInput(await toPngInput(bytes, what, maxSide), what, route, warnings)).ref;
}

const formatChars = (n: number) =>
  n >= 1024 * 1024 ? `${Math.round((n / (1024 * 1024)) * 10) / 10} MB` : `${Math.round(n / 1024)} KB`;
