import fs from 'node:fs/promises';
import { MediaError } from './media-error.ts';

/** Bounds every analyzer applies. Each analyzer takes a partial set and fills the rest from the defaults. */
export interface MediaLimits {
  /** Largest file accepted, in bytes (the spec's upload ceiling by default). */
  maxBytes: number;
  /** Largest image accepted, in pixels (width × height), checked on the header before decoding. */
  maxPixels: number;
  /** Wall-clock bound of one analysis, in milliseconds. */
  timeoutMs: number;
}

export const MAX_UPLOAD_BYTES = 524_288_000;

export const DEFAULT_MEDIA_LIMITS: Readonly<MediaLimits> = {
  maxBytes: MAX_UPLOAD_BYTES,
  maxPixels: 100_000_000,
  timeoutMs: 60_000,
};

export const resolveLimits = (limits: Partial<MediaLimits> = {}): MediaLimits => ({
  maxBytes: limits.maxBytes ?? DEFAULT_MEDIA_LIMITS.maxBytes,
  maxPixels: limits.maxPixels ?? DEFAULT_MEDIA_LIMITS.maxPixels,
  timeoutMs: limits.timeoutMs ?? DEFAULT_MEDIA_LIMITS.timeoutMs,
});

/** 1500 → "2 s", 300 → "300 ms": a time limit in words. */
export const describeMs = (ms: number): string => (ms < 1000 ? `${ms} ms` : `${Math.round(ms / 1000)} s`);

const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(bytes < 1_048_576 ? 2 : 0)} MB`;

/** Size of the file, or TOO_LARGE when over `maxBytes`; CORRUPT when empty. Errors of stat (ENOENT) pass through. */
export async function checkFileSize(filePath: string, maxBytes: number): Promise<number> {
  const { size } = await fs.stat(filePath);
  if (size > maxBytes) {
    throw new MediaError('TOO_LARGE', `The file is ${mb(size)}, over the limit of ${mb(maxBytes)}.`, {
      fileSize: size,
      maxBytes,
    });
  }
  if (size === 0) throw new MediaError('CORRUPT', 'The file is empty.');
  return size;
}

/**
 * Runs `work` and rejects with TIMEOUT after `ms`. `onTimeout` releases what the work holds (a
 * pdf.js document, a child process); work that cannot be interrupted (a libvips decode) finishes in
 * the background, bounded by the pixel limit, and its result is dropped.
 */
export async function withTimeout<T>(work: Promise<T>, ms: number, what: string, onTimeout?: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout?.();
      reject(new MediaError('TIMEOUT', `${what} took longer than ${describeMs(ms)} and was stopped.`));
    }, ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
    // A rejection of `work` after the timeout won must not become an unhandled rejection.
    work.catch(() => {});
  }
}
