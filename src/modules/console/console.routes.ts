import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { StorageSettings } from '../../adapters/storage/storage.ts';
import { AppError, forbidden, unauthorized } from '../../http/errors.ts';
import { clearedSessionCookie, sameToken, sessionCookie, sessionIdOf } from './cookies.ts';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from './passwords.ts';
import type { ConsoleService } from './console.service.ts';

const SessionView = Type.Object({
  user: Type.Object({
    id: Type.String(),
    name: Type.String(),
    email: Type.Union([Type.String(), Type.Null()]),
    role: Type.String(),
    organizationId: Type.String(),
    organizationName: Type.String(),
  }),
  csrfToken: Type.String(),
});
const LoginBody = Type.Object(
  {
    email: Type.String({ minLength: 1, maxLength: 320 }),
    password: Type.String({ minLength: 1, maxLength: MAX_PASSWORD_LENGTH }),
  },
  { additionalProperties: false },
);
const AcceptInviteBody = Type.Object(
  {
    token: Type.String({ minLength: 1, maxLength: 200 }),
    password: Type.String({ minLength: MIN_PASSWORD_LENGTH, maxLength: MAX_PASSWORD_LENGTH }),
  },
  { additionalProperties: false },
);

/** Origins (scheme://host[:port]) of a URL, or undefined. */
const originOf = (url: string | undefined) => {
  if (!url) return undefined;
  try {
    return new URL(url).origin;
  } catch {
    return undefined;
  }
};

/**
 * The console pages' Content-Security-Policy: only this server's own scripts and styles; images
 * and media also from signed links (the public URL for local storage, the S3 store's origin);
 * uploads (PUT to signed links) to the same; never framed.
 */
export function consoleCsp(config: { publicUrl: string; storage: StorageSettings }): string {
  const links = new Set<string>();
  const pub = originOf(config.publicUrl);
  if (pub) links.add(pub);
  const s3 = config.storage.s3;
  if (s3) {
    if (s3.endpoint) {
      const u = new URL(s3.endpoint);
      links.add(u.origin);
      if (!s3.forcePathStyle) links.add(`${u.protocol}//${s3.bucket}.${u.host}`);
    } else {
      links.add(`https://${s3.bucket}.s3.${s3.region}.amazonaws.com`);
      links.add(`https://s3.${s3.region}.amazonaws.com`);
    }
  }
  const extra = [...links].join(' ');
  return [
    "default-src 'self'",
    `img-src 'self' data: blob: ${extra}`,
    `media-src 'self' data: blob: ${extra}`,
    `connect-src 'self' ${extra}`,
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.avif': 'image/avif',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.otf': 'font/otf',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
  '.wasm': 'application/wasm',
};

/** Build output under `assets/` carries a content hash in its name: cached for good. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

export interface ConsoleRoutesDeps {
  /** The public URL and storage (the pages' CSP) and ATELIER_CONSOLE_DIR (the built UI). */
  config: { publicUrl: string; storage: StorageSettings; consoleDir: string };
  console: ConsoleService;
}

/**
 * The console: its sign-in API under /console/api (cookie sessions, no API key) and the built UI
 * (ATELIER_CONSOLE_DIR, default console/dist) at /console.
 */
export function consoleRoutes(deps: ConsoleRoutesDeps): FastifyPluginAsync {
  const { config } = deps;
  const service = deps.console;
  const secure = config.publicUrl.startsWith('https:');
  const csp = consoleCsp(config);
  const hidden = { hide: true };

  function pageHeaders(reply: FastifyReply) {
    reply
      .header('content-security-policy', csp)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('x-frame-options', 'DENY');
  }

  async function serveFile(request: FastifyRequest, reply: FastifyReply, relative: string) {
    pageHeaders(reply);
    const root = path.resolve(config.consoleDir);
    const index = path.join(root, 'index.html');
    if (!fs.existsSync(index)) {
      throw new AppError(
        503,
        'CONSOLE_NOT_BUILT',
        `The web console is not built: no ${index}. Build it (npm install builds it) or set ATELIER_CONSOLE_DIR.`,
      );
    }
    const segments = relative.split('/').filter(Boolean);
    const notFound = () => new AppError(404, 'NOT_FOUND', `No console file /console/${relative}`);
    if (segments.some((s) => s.startsWith('.') || s.includes('\0') || s.includes('\\'))) throw notFound();
    const file = segments.length ? path.resolve(root, ...segments) : index;
    if (file !== root && !file.startsWith(root + path.sep)) throw notFound();
    let stat: fs.Stats;
    try {
      stat = await fs.promises.stat(file);
    } catch {
      throw notFound();
    }
    if (!stat.isFile()) throw notFound();
    const type = CONTENT_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream';
    const etag = `"${createHash('sha1').update(`${stat.size}:${stat.mtimeMs}:${file}`).digest('base64url')}"`;
    reply
      .header('content-type', type)
      .header('cache-control', segments[0] === 'assets' ? IMMUTABLE : 'no-cache')
      .header('etag', etag)
      .header('last-modified', stat.mtime.toUTCString());
    if (request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.header('content-length', stat.size).send(fs.createReadStream(file));
  }

  return async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    const setSession = (reply: FastifyReply, sessionId: string) =>
      reply.header('set-cookie', sessionCookie(sessionId, secure)).header('cache-control', 'no-store');

    app.post(
      '/console/api/login',
      {
        config: { auth: false, idempotency: false },
        schema: { ...hidden, body: LoginBody, response: { 200: SessionView } },
      },
      async (request, reply) => {
        const { sessionId, view } = await service.login(request.body.email, request.body.password, request.ip);
        setSession(reply, sessionId);
        return view;
      },
    );

    app.post(
      '/console/api/logout',
      { config: { auth: false, idempotency: false }, schema: hidden },
      async (request, reply) => {
        const sessionId = sessionIdOf(request.headers.cookie);
        if (sessionId) {
          const session = await service.authenticate(sessionId);
          if (session) {
            const csrf = request.headers['x-csrf-token'];
            if (!sameToken(typeof csrf === 'string' ? csrf : undefined, session.view.csrfToken)) {
              throw forbidden('Missing or wrong X-CSRF-Token header for this console session', 'CSRF_FAILED');
            }
          }
          await service.logout(sessionId);
        }
        return reply.header('set-cookie', clearedSessionCookie(secure)).code(204).send();
      },
    );

    app.get(
      '/console/api/me',
      { config: { auth: false }, schema: { ...hidden, response: { 200: SessionView } } },
      async (request, reply) => {
        const sessionId = sessionIdOf(request.headers.cookie);
        const session = sessionId ? await service.authenticate(sessionId) : null;
        if (!session) throw unauthorized('Not signed in to the console');
        reply.header('cache-control', 'no-store');
        return session.view;
      },
    );

    app.post(
      '/console/api/invites/accept',
      {
        config: { auth: false, idempotency: false },
        schema: { ...hidden, body: AcceptInviteBody, response: { 200: SessionView } },
      },
      async (request, reply) => {
        const { sessionId, view } = await service.acceptInvite(request.body.token, request.body.password);
        setSession(reply, sessionId);
        return view;
      },
    );

    app.get('/console', { config: { auth: false }, schema: hidden }, (request, reply) => serveFile(request, reply, ''));
    app.get<{ Params: { '*': string } }>('/console/*', { config: { auth: false }, schema: hidden }, (request, reply) =>
      serveFile(request, reply, request.params['*'] ?? ''),
    );
  };
}
