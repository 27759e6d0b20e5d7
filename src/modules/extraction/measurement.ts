/** What the pipeline measured from a downloaded candidate. */
export interface Measurement {
  width?: number;
  height?: number;
  /** sharp's format name (`jpeg`, `png`, `webp`, `gif`, `svg`, `avif`, `tiff`, ...) or a sniffed type. */
  format?: string;
  hasAlpha?: boolean;
  /** Distinct colours in a downscaled copy. */
  colorCount?: number;
  fileSize?: number;
  /** 64-bit perceptual hash as 16 hex digits. */
  phash?: string;
  /** Set when the bytes could not be decoded as an image. */
  decodeError?: string;
}
