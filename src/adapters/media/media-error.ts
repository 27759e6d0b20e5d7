/**
 * The one error every media analyzer throws for a problem with the file itself. The asset job maps
 * it to the asset's `errorCode`/`errorMessage`; `message` is written for a person, not a log.
 * Anything else an analyzer lets through (a missing temp file, EMFILE, ...) is an infrastructure
 * failure the job may retry.
 */
export type MediaErrorCode =
  /** The bytes are a format (or a variant of one) we do not process. */
  | 'UNSUPPORTED'
  /** The bytes claim a supported format but cannot be decoded (truncated, damaged, inconsistent). */
  | 'CORRUPT'
  /** The file, its pixel count or its decompressed size is over a limit. */
  | 'TOO_LARGE'
  /** The analysis took longer than its time limit and was stopped. */
  | 'TIMEOUT';

export class MediaError extends Error {
  readonly code: MediaErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: MediaErrorCode, message: string, details?: Record<string, unknown>, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.details = details;
    this.name = 'MediaError';
  }
}

export const isMediaError = (err: unknown): err is MediaError => err instanceof MediaError;
