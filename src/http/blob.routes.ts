import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { Readable } from 'node:stream';
import { Type } from 'typebox';
import type { Clock } from '../clock.ts';
import { isLocalStorage, type LocalObjectStorage } from '../adapters/storage/local.storage.ts';
import type { LinkClaims } from '../adapters/storage/link-signing.ts';
import { isStorageError, type ObjectStorage } from '../adapters/storage/storage.port.ts';
import { isValidKey, parseRangeHeader } from '../adapters/storage/storage.rules.ts';
import { AppError, badRequest, errorResponses, forbidden, notFound } from './errors.ts';

export interface BlobRoutesDeps {
  storage: ObjectStorage;
  clock: Clock;
}

/**
 * The local storage adapter's signed links (link-signing.ts), on the API itself and without an API
 * key: `PUT /v1/blobs/<key>?expires&length&type&signature` stores an upload,
 * `GET|HEAD /v1/blobs/<key>?expires[&type][&disposition]&signature` serves it (one Range). Only
 * registered when storage is local; with S3 the links point at the store.
 */
export function blobRoutes(deps: BlobRoutesDeps): FastifyPluginAsync {
  return async (app) => {
    const storage = deps.storage;
    if (!isLocalStorage(storage)) return;

    // Upload bodies are streamed to disk whatever their type: no parser reads or buffers them, so
    // the JSON body limit does not apply; the signed length does.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (_request, payload, done) => done(null, payload));

    // Links are bearer credentials, so any origin may use them (browser uploads from a web app).
    app.addHook('onRequest', async (_request, reply) => {
      reply.header('access-control-allow-origin', '*');
      reply.header('access-control-expose-headers', 'content-length, content-range, content-disposition, x-request-id');
    });

    const Params = Type.Object({ '*': Type.String({ description: 'Object key' }) });
    const Query = Type.Object(
      {
        expires: Type.Optional(Type.String({ description: 'Unix time (seconds) after which the link is refused' })),
        length: Type.Optional(Type.String({ description: 'Upload links: exact size of the body in bytes' })),
        type: Type.Optional(Type.String({ description: 'Content-Type of the upload, or of the download response' })),
        disposition: Type.Optional(Type.String({ description: 'Download links: Content-Disposition of the response' })),
        signature: Type.Optional(Type.String({ description: 'HMAC-SHA256 of the link (base64url)' })),
      },
      { additionalProperties: true },
    );
    const Bytes = Type.Unsafe<unknown>({ type: 'string', format: 'binary', description: 'The object bytes' });
    // Uploads may take as long as the whole-request bound allows (slow-bodies.ts).
    const config = { auth: false, longBody: true } as const;

    app.put<{ Params: { '*': string }; Querystring: Record<string, unknown> }>(
      '/blobs/*',
      {
        config,
        schema: {
          summary: 'Upload to a signed link',
          description:
            'The link returned as `uploadUrl` by initiate-upload. Send the file as the body with the `uploadHeaders` and no API key; the body must be exactly the declared size.',
          tags: ['Storage'],
          params: Params,
          querystring: Query,
          response: {
            200: Type.Null({ description: 'Stored (a second upload to the same link replaces it)' }),
            ...errorResponses(400, 403, 413),
          },
        },
      },
      async (request, reply) => {
        const key = request.params['*'];
        const claims = checkLink(storage, 'PUT', key, request.query);
        const length = claims.length;
        if (length === undefined || claims.type === undefined) throw invalidLink();
        const sentType = request.headers['content-type']?.trim();
        if (sentType !== claims.type) {
          throw forbidden(`Content-Type must be "${claims.type}", as signed in this link`, 'FORBIDDEN', {
            reason: 'content_type_mismatch',
            expectedContentType: claims.type,
          });
        }
        // A declared size is checked before a byte is read.
        const declared = request.headers['content-length'];
        if (declared !== undefined && Number(declared) > length) throw tooLarge(length);
        if (declared !== undefined && Number(declared) < length) throw tooSmall(length, Number(declared));
        const body = (request.body as Readable | undefined) ?? request.raw;
        try {
          await storage.put(key, body, { contentType: claims.type, contentLength: length });
        } catch (err) {
          if (isStorageError(err, 'TOO_LARGE')) throw tooLarge(length);
          if (isStorageError(err, 'TOO_SMALL')) throw tooSmall(length);
          if (request.raw.destroyed || (err as { code?: string }).code === 'ERR_STREAM_PREMATURE_CLOSE') {
            throw badRequest('The upload was interrupted before all bytes arrived');
          }
          throw err;
        }
        return reply.code(200).send();
      },
    );

    app.route<{ Params: { '*': string }; Querystring: Record<string, unknown> }>({
      // HEAD declared here rather than derived by Fastify, which would read the whole file.
      method: ['GET', 'HEAD'],
      url: '/blobs/*',
      config,
      schema: {
        summary: 'Download from a signed link',
        description:
          'The `url`/`thumbnailUrl` links of assets. No API key. Supports one byte range (`Range: bytes=...`).',
        tags: ['Storage'],
        params: Params,
        querystring: Query,
        response: {
          200: Bytes,
          206: { ...Bytes, description: 'The requested byte range' },
          ...errorResponses(403, 404, 416),
        },
      },
      handler: async (request, reply) => {
        const key = request.params['*'];
        const claims = checkLink(storage, 'GET', key, request.query);
        const info = await storage.head(key);
        if (!info) throw gone();
        // A conditional range cannot be validated (no ETag), so it is answered with the whole object.
        const range = request.headers['if-range'] ? undefined : parseRangeHeader(request.headers.range, info.size);
        if (range === 'unsatisfiable') {
          throw new AppError(416, 'RANGE_NOT_SATISFIABLE', `The object has ${info.size} bytes`, undefined, {
            'content-range': `bytes */${info.size}`,
          });
        }
        let stream: Readable | undefined;
        try {
          if (request.method !== 'HEAD') stream = await storage.getStream(key, range);
        } catch (err) {
          if (isStorageError(err, 'NOT_FOUND')) throw gone();
          throw err;
        }
        setDownloadHeaders(reply, claims, info.contentType, deps.clock());
        if (range) {
          reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${info.size}`);
        }
        reply.header('content-length', String(range ? range.end - range.start + 1 : info.size));
        return reply.send(stream);
      },
    });

    app.options('/blobs/*', { config, schema: { hide: true } }, async (request, reply) => {
      const asked = request.headers['access-control-request-headers'];
      return reply
        .code(204)
        .header('access-control-allow-methods', 'GET, HEAD, PUT')
        .header('access-control-allow-headers', typeof asked === 'string' ? asked : 'content-type, range')
        .header('access-control-max-age', '86400')
        .send();
    });
  };
}

function invalidLink(): AppError {
  return forbidden('This link is invalid: it was altered or is incomplete', 'FORBIDDEN', { reason: 'link_invalid' });
}

/** The link's claims when its signature holds and it has not expired; 403 otherwise. */
function checkLink(
  storage: LocalObjectStorage,
  method: 'GET' | 'PUT',
  key: string,
  query: Record<string, unknown>,
): LinkClaims {
  if (!isValidKey(key)) throw invalidLink();
  const check = storage.verifyLink(method, key, query);
  if (check.ok) return check.claims;
  if (check.reason === 'expired') {
    throw forbidden('This link has expired; ask the API for a new one', 'FORBIDDEN', { reason: 'link_expired' });
  }
  throw invalidLink();
}

function tooLarge(length: number): AppError {
  return new AppError(413, 'PAYLOAD_TOO_LARGE', `This link accepts exactly ${length} bytes`, {
    expectedBytes: length,
  });
}

function gone(): AppError {
  return notFound('This object does not exist (it may have been deleted)');
}

function tooSmall(length: number, received?: number): AppError {
  return badRequest(`This link accepts exactly ${length} bytes; the upload had fewer`, {
    expectedBytes: length,
    ...(received !== undefined ? { receivedBytes: received } : {}),
  });
}

function setDownloadHeaders(reply: FastifyReply, claims: LinkClaims, storedType: string | undefined, now: Date): void {
  const maxAge = Math.max(0, claims.expires - Math.ceil(now.getTime() / 1000));
  reply.headers({
    'content-type': claims.type ?? storedType ?? 'application/octet-stream',
    'accept-ranges': 'bytes',
    'cache-control': `private, max-age=${maxAge}`,
    // User content served from the API's origin: never sniffed, never run as a page.
    'x-content-type-options': 'nosniff',
    'content-security-policy': "default-src 'none'; sandbox",
  });
  if (claims.disposition) reply.header('content-disposition', claims.disposition);
}
