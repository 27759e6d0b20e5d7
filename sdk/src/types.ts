import type { Operations } from './openapi-types.ts';

/** `"METHOD /path"` of every operation in the OpenAPI document. */
export type OperationKey = keyof Operations;
type Responses<K extends OperationKey> = Operations[K]['responses'];
/** The body of the operation's success answer (2xx). */
export type Success<K extends OperationKey> = {
  [S in keyof Responses<K>]: S extends 200 | 201 | 202 | 204 ? Responses<K>[S] : never;
}[keyof Responses<K>];
export type PathParams<K extends OperationKey> = Operations[K]['path'];
export type Query<K extends OperationKey> = Operations[K]['query'];
export type Body<K extends OperationKey> = Operations[K]['body'];

/** Per-call options every method accepts last. */
export interface CallOptions {
  signal?: AbortSignal;
  /** Overrides the client's per-attempt timeout. */
  timeoutMs?: number;
  /** Overrides the client's retry count for this call. */
  retries?: number;
  /** Extra request headers. */
  headers?: Record<string, string>;
}
