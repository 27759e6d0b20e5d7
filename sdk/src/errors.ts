import type { ErrorBody } from './openapi-types.ts';

export interface AtelierErrorInit {
  status: number;
  code: string;
  message: string;
  requestId?: string | undefined;
  details?: Record<string, unknown> | undefined;
  method?: string | undefined;
  url?: string | undefined;
  /** Retry-After of the answer, in milliseconds. */
  retryAfterMs?: number | undefined;
  cause?: unknown;
}

/**
 * Any failed call. `status` is the HTTP status (0 when no answer came: network error, timeout,
 * abort), `code` the API's machine code (`error.code`, e.g. `BRAND_NOT_FOUND`), `requestId` the
 * server's request id to quote in a report, `details` the error details when the API sent some.
 */
export class AtelierError extends Error {
  readonly status: number;
  readonly code: string;
  readonly requestId: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(init: AtelierErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.status = init.status;
    this.code = init.code;
    this.requestId = init.requestId;
    this.details = init.details;
    this.method = init.method;
    this.url = init.url;
    this.retryAfterMs = init.retryAfterMs;
  }

  /** `CODE: message (HTTP 404, request <id>)`, the form the CLI prints. */
  override toString(): string {
    const where = [this.status ? `HTTP ${this.status}` : undefined, this.requestId && `request ${this.requestId}`]
      .filter(Boolean)
      .join(', ');
    return `${this.code}: ${this.message}${where ? ` (${where})` : ''}`;
  }
}

/** 400 and 422: the body or parameters were refused; `details` says which field when known. */
export class ValidationError extends AtelierError {}
/** 401: missing, invalid, unknown, revoked or expired API key. */
export class AuthenticationError extends AtelierError {}
/** 403: outside the developer surface, no permission, plan feature missing, asset not owned. */
export class PermissionError extends AtelierError {}
/** 403 `QUOTA_EXCEEDED`: the plan's pool for this billing period is used up (see `usage.get()`). */
export class QuotaError extends PermissionError {}
/** 403 `upgrade_required`: the request is over the plan tier (nothing was trimmed). */
export class UpgradeRequiredError extends PermissionError {}
/** 404: the resource does not exist or belongs to another organization. */
export class NotFoundError extends AtelierError {}
/** 409: invalid status for the action, stale update, asset not ready… */
export class ConflictError extends AtelierError {}
/**
 * 412: the brand changed since the ETag the update carried was read. Read the brand again
 * (`brands.get`), re-apply your change, and update again.
 */
export class PreconditionFailedError extends AtelierError {}
/** 429 after the retries: `retryAfterMs` says when to come back. */
export class RateLimitError extends AtelierError {}
/** 5xx after the retries (or at once for a POST the server may have acted on). */
export class ServerError extends AtelierError {}
/** No answer: connection refused or reset, DNS failure, per-attempt timeout (`code` says which). */
export class ConnectionError extends AtelierError {}
/** `waitFor` reached its timeout before the resource reached a terminal status. */
export class WaitTimeoutError extends AtelierError {}

/** The error class for an API error answer. */
export function errorFor(status: number, body: unknown, init: Omit<AtelierErrorInit, 'status' | 'code' | 'message'>) {
  const e = (body as Partial<ErrorBody> | undefined)?.error;
  const code = typeof e?.code === 'string' ? e.code : `HTTP_${status}`;
  const message = typeof e?.message === 'string' ? e.message : `HTTP ${status}`;
  const requestId = (body as Partial<ErrorBody> | undefined)?.requestId ?? init.requestId;
  const full: AtelierErrorInit = { ...init, status, code, message, requestId, details: e?.details ?? init.details };
  if (status === 400 || status === 422) return new ValidationError(full);
  if (status === 401) return new AuthenticationError(full);
  if (status === 403) {
    if (code === 'QUOTA_EXCEEDED') return new QuotaError(full);
    if (code === 'upgrade_required') return new UpgradeRequiredError(full);
    return new PermissionError(full);
  }
  if (status === 404) return new NotFoundError(full);
  if (status === 409) return new ConflictError(full);
  if (status === 412) {
    return new PreconditionFailedError({
      ...full,
      message: `${message}: the brand changed since it was read; get it again, re-apply the change and retry`,
    });
  }
  if (status === 429) return new RateLimitError(full);
  if (status >= 500) return new ServerError(full);
  return new AtelierError(full);
}
