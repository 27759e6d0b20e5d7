export {
  Atelier,
  type AtelierOptions,
  type Pollable,
  type PollableKind,
  type UploadOptions,
  type WaitOptions,
  type WaitProgress,
  type WaitTarget,
  sniffType,
  TERMINAL,
  TYPES_BY_EXTENSION,
  typeFromName,
} from './client.ts';
export * from './errors.ts';
export { type FetchLike, type HttpResponse, parseRetryAfter, retryDecision } from './http.ts';
export type * from './openapi-types.ts';
export type { Body, CallOptions, OperationKey, PathParams, Query, Success } from './types.ts';
