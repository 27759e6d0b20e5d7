import { Type } from 'typebox';

/**
 * The one error body: `{ requestId, error: { code, message, details? } }`.
 * Services throw AppError; the HTTP error handler (http/error-handler.ts) turns every error,
 * including Fastify's own and unexpected ones, into this shape.
 */
export class AppError extends Error {
  readonly statusCode: number;
  readonly code: string;
  readonly details?: Record<string, unknown>;
  readonly headers?: Record<string, string>;

  constructor(
    statusCode: number,
    code: string,
    message: string,
    details?: Record<string, unknown>,
    headers?: Record<string, string>,
  ) {
    super(message);
    this.statusCode = statusCode;
    this.code = code;
    this.details = details;
    this.headers = headers;
    this.name = 'AppError';
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>, code = 'INVALID_REQUEST') =>
  new AppError(400, code, message, details);
export const unauthorized = (message = 'A valid API key is required') =>
  new AppError(401, 'UNAUTHORIZED', message, undefined, { 'www-authenticate': 'Bearer' });
export const forbidden = (message: string, code = 'FORBIDDEN', details?: Record<string, unknown>) =>
  new AppError(403, code, message, details);
export const notFound = (message: string, code = 'NOT_FOUND') => new AppError(404, code, message);
export const conflict = (message: string, code = 'CONFLICT', details?: Record<string, unknown>) =>
  new AppError(409, code, message, details);
export const preconditionFailed = (message: string) => new AppError(412, 'PRECONDITION_FAILED', message);
export const unprocessable = (message: string, details?: Record<string, unknown>, code = 'VALIDATION_ERROR') =>
  new AppError(422, code, message, details);
export const rateLimited = (retryAfterSeconds: number, message = 'Rate limit exceeded') =>
  new AppError(429, 'RATE_LIMITED', message, { retryAfterSeconds }, { 'retry-after': String(retryAfterSeconds) });
/** A request that reached a server already closing (a deploy or restart): safe to send again. */
export const shuttingDown = () =>
  new AppError(
    503,
    'SERVICE_UNAVAILABLE',
    'The server is shutting down; send the request again',
    { retryAfterSeconds: 1 },
    { 'retry-after': '1' },
  );

/** Validation failure on one named field (`body.name`, `query.limit`, ...). */
export const fieldError = (field: string, message: string, status: 400 | 422 = 400) =>
  status === 400
    ? badRequest(`${field} ${message}`, { fields: [{ field, message }] })
    : unprocessable(`${field} ${message}`, { fields: [{ field, message }] });

export const ErrorBody = Type.Object(
  {
    requestId: Type.String({ format: 'uuid' }),
    error: Type.Object({
      code: Type.String({ description: 'Machine-readable error code' }),
      message: Type.String(),
      details: Type.Optional(Type.Object({}, { additionalProperties: true })),
    }),
  },
  { title: 'Error' },
);

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid body or parameters',
  401: 'Missing, malformed, unknown, revoked or expired API key',
  402: 'Payment required',
  403: 'Forbidden: outside the developer surface, plan feature missing, or no permission',
  404: 'Resource not found',
  409: 'Conflict with the resource state',
  412: 'If-Match precondition failed',
  413: 'Request body too large',
  415: 'Unsupported content type',
  422: 'Semantically invalid request',
  429: 'Rate limit exceeded; see Retry-After',
  500: 'Internal error',
  503: 'Service unavailable',
};

/** Headers every answer of a status carries (the spec: 429 comes with an integer `Retry-After`). */
const HEADERS: Record<number, Record<string, unknown>> = {
  429: { 'Retry-After': Type.Integer({ minimum: 1, description: 'Seconds to wait before retrying' }) },
};

/** Response schema entries for the given error statuses, for a route's `schema.response`. */
export function errorResponses(...statuses: number[]): Record<number, unknown> {
  const out: Record<number, unknown> = {};
  for (const s of statuses) {
    out[s] = { ...ErrorBody, description: DESCRIPTIONS[s] ?? 'Error', ...(HEADERS[s] ? { headers: HEADERS[s] } : {}) };
  }
  return out;
}
