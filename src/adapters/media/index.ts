/**
 * Media processing adapters: what the asset job calls. Every analyzer takes a file path (the job
 * downloads the object to a temp file) and optional limits, and throws MediaError (UNSUPPORTED,
 * CORRUPT, TOO_LARGE, TIMEOUT) for problems with the file; anything else is an infrastructure
 * failure. Decisions (vocabularies, thresholds, polyglots) are in docs/decisions/storage-media-fetch.md, Media processing.
 */
export { type MediaErrorCode, MediaError, isMediaError } from './media-error.ts';
export { DEFAULT_MEDIA_LIMITS, MAX_UPLOAD_BYTES, type MediaLimits } from './limits.ts';
export {
  type ContentCheck,
  checkDeclaredAgainstDetected,
  classifyDeclared,
  type DeclaredClassification,
  FORMATS,
  type FormatInfo,
  type FormatName,
  formatForMime,
  formatInfo,
  type MediaAssetType,
  SUPPORTED_FORMATS,
  type SniffResult,
  sniffFile,
  sniffFormat,
  type UnsupportedContentsDetails,
} from './sniff.ts';
export { analyzeImage, type ImageAnalysis, type ImageAnalysisOptions } from './image.ts';
export { analyzeVideo, probeVideo, type VideoAnalysis, type VideoAnalysisOptions } from './video.ts';
export type { VideoProbe } from './video-args.ts';
export { analyzePdf, extractPdfText, type PdfAnalysis, type PdfAnalysisOptions, type PdfText } from './pdf.ts';
export { extractWordText, type WordOptions, type WordText } from './doc.ts';
export { analyzeFont, type FontAnalysis, type FontOptions } from './font.ts';
export type { Thumbnail, ThumbnailOptions } from './thumbnail.ts';
export { COLOR_NAMES, type DominantColor } from './colors.ts';
export {
  AUTO_TAGS,
  type Orientation,
  QUALITY_LEVELS,
  QUALITY_REASON_CODES,
  type QualityLevel,
  type QualityReasonCode,
  type QualityTag,
  THRESHOLDS,
} from './tags.ts';
