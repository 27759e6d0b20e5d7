import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { QueueUnavailableError } from '../jobs/types.ts';
import { AppError } from './errors.ts';
import { describeValidation } from '../adapters/validation/json-schema.ts';
import { validationMessage } from './validation.ts';

const FASTIFY_CODES: Record<string, { status: number; code: string; message?: string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    status: 415,
    code: 'UNSUPPORTED_MEDIA_TYPE',
    message: 'Request bodies must be JSON (Content-Type: application/json)',
  },
  FST_ERR_CTP_BODY_TOO_LARGE: { status: 413, code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large' },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    status: 400,
    code: 'INVALID_REQUEST',
    message: 'Body cannot be empty when Content-Type is application/json',
  },
  FST_ERR_CTP_INVALID_JSON_BODY: { status: 400, code: 'INVALID_REQUEST', message: 'Body is not valid JSON' },
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: { status: 400, code: 'INVALID_REQUEST', message: 'Invalid Content-Length' },
};

const STATUS_CODES: Record<number, string> = {
  400: 'INVALID_REQUEST',
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  406: 'NOT_ACCEPTABLE',
  409: 'CONFLICT',
  411: 'LENGTH_REQUIRED',
  412: 'PRECONDITION_FAILED',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  422: 'VALIDATION_ERROR',
  429: 'RATE_LIMITED',
  431: 'HEADERS_TOO_LARGE',
};

interface ErrorPayload {
  requestId: string;
  error: { code: string; message: string; details?: Record<string, unknown> };
}

function sendError(
  reply: FastifyReply,
  request: FastifyRequest,
  status: number,
  code: string,
  message: string,
  details?: Record<string, unknown>,
): FastifyReply {
  const body: ErrorPayload = { requestId: request.id, error: { code, message } };
  if (details !== undefined) body.error.details = details;
  // Serialized here rather than through the route's schema so an error is never reshaped.
  return reply.code(status).type('application/json; charset=utf-8').serializer(JSON.stringify).send(body);
}

/**
 * Fastify's `frameworkErrors` constructor option: errors the router raises before any hook runs (a
 * malformed percent-encoding in the path, a path parameter longer than `maxParamLength`) in the one
 * error body with the `x-request-id` header, instead of Fastify's own body. Both mean a malformed
 * path, which is 400 like any malformed UUID path parameter.
 */
export function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  reply.header('x-request-id', request.id);
  if (err.code === 'FST_ERR_BAD_URL' || err.code === 'FST_ERR_MAX_PARAM_LENGTH') {
    const message =
      err.code === 'FST_ERR_BAD_URL' ? 'The request path is not a valid URL' : 'A path parameter is too long';
    sendError(reply, request, 400, 'INVALID_REQUEST', message);
    return;
  }
  request.log.error({ err }, 'framework error');
  sendError(reply, request, 500, 'INTERNAL_ERROR', 'Internal error');
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError | AppError | Error, request, reply) => {
    if (err instanceof AppError) {
      if (err.headers) reply.headers(err.headers);
      return sendError(reply, request, err.statusCode, err.code, err.message, err.details);
    }
    if (err instanceof QueueUnavailableError) {
      // The create undid what it wrote (or its sweep re-enqueues what it kept): safe to retry.
      request.log.warn({ err: err.message }, 'job queue unavailable');
      reply.header('retry-after', String(err.retryAfterSeconds));
      return sendError(
        reply,
        request,
        503,
        'SERVICE_UNAVAILABLE',
        'The job queue cannot be reached right now; nothing was started. Try again in a few seconds',
        { retryAfterSeconds: err.retryAfterSeconds },
      );
    }
    const fe = err as FastifyError;
    if (fe.validation) {
      const fields = describeValidation(fe.validation, fe.validationContext);
      return sendError(reply, request, 400, 'INVALID_REQUEST', validationMessage(fields), { fields });
    }
    const mapped = fe.code ? FASTIFY_CODES[fe.code] : undefined;
    if (mapped) return sendError(reply, request, mapped.status, mapped.code, mapped.message ?? fe.message);
    if (err instanceof SyntaxError) return sendError(reply, request, 400, 'INVALID_REQUEST', 'Body is not valid JSON');
    const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
    if (status >= 400 && status < 500) {
      return sendError(reply, request, status, STATUS_CODES[status] ?? 'INVALID_REQUEST', fe.message);
    }
    request.log.error({ err }, 'unhandled error');
    return sendError(reply, request, 500, 'INTERNAL_ERROR', 'Internal error');
  });

  app.setNotFoundHandler((request, reply) =>
    sendError(reply, request, 404, 'NOT_FOUND', `No route ${request.method} ${request.url.split('?')[0]}`),
  );
}

/**
 * Node's HTTP parser refuses some requests before Fastify sees them (headers over the size
 * limit, two Content-Length headers, Content-Length with chunked, a bad chunk size, NUL or folded
 * headers, a garbage request line). Fastify's `clientErrorHandler` option: answer them with the one
 * error body and an `x-request-id` too — 431 `HEADERS_TOO_LARGE` for oversized headers, 408
 * `REQUEST_TIMEOUT` for a client too slow to send its headers or request (ATELIER_*_TIMEOUT),
 * 400 `INVALID_REQUEST` otherwise — and close the connection (the stream cannot be trusted after).
 */
export function clientErrorResponse(err: NodeJS.ErrnoException & { rawPacket?: Buffer }): string {
  const requestId = randomUUID();
  const [status, reason, code, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'Request Header Fields Too Large', 'HEADERS_TOO_LARGE', 'The request line or headers are too large']
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'Request Timeout', 'REQUEST_TIMEOUT', 'The request did not arrive in time']
        : [400, 'Bad Request', 'INVALID_REQUEST', 'The request is not valid HTTP/1.1'];
  const body = JSON.stringify({ requestId, error: { code, message } });
  return (
    `HTTP/1.1 ${status} ${reason}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    `x-request-id: ${requestId}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

export function clientErrorHandler(err: NodeJS.ErrnoException, socket: Duplex): void {
  // A reset or a request timeout leaves nobody to answer (Node's own rule).
  if (err.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(clientErrorResponse(err));
}
