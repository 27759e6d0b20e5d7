import diagnostics from 'node:diagnostics_channel';
import { Validator } from '@seriousme/openapi-schema-validator';
import Fastify, { type FastifyInstance, type RouteOptions } from 'fastify';
import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installOpenApi } from '../src/http/openapi.ts';
import { makeAjv } from '../src/adapters/validation/json-schema.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: documents are read field by field
type Json = any;

interface OpenApiDoc {
  openapi: string;
  info: { version: string };
  security: unknown;
  components: { securitySchemes: Record<string, unknown> };
  paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }>>;
}

/** Every route registered on every Fastify instance created while `create` runs. */
async function recordRoutes<T>(create: () => Promise<T>): Promise<{ result: T; routes: RouteOptions[] }> {
  const routes: RouteOptions[] = [];
  const hook = (message: unknown) => {
    (message as { fastify: FastifyInstance }).fastify.addHook('onRoute', (r) => void routes.push(r));
  };
  diagnostics.subscribe('fastify.initialization', hook);
  try {
    return { result: await create(), routes };
  } finally {
    diagnostics.unsubscribe('fastify.initialization', hook);
  }
}

// As @fastify/swagger writes Fastify paths: `:id` → `{id}`, a trailing `*` → `{*}`.
const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{*}');

async function validate(doc: unknown) {
  const validator = new Validator();
  const res = await validator.validate(doc as Record<string, unknown>);
  expect(res.errors ?? [], JSON.stringify(res.errors, null, 1)?.slice(0, 2000)).toEqual([]);
  expect(res.valid).toBe(true);
  expect(validator.version).toBe('3.1');
}

describe('OpenAPI document of the app', () => {
  let t: TestApp;
  let routes: RouteOptions[];
  let doc: OpenApiDoc;
  beforeAll(async () => {
    ({ result: t, routes } = await recordRoutes(() => createTestApp('sqlite')));
    const res = await t.request({ method: 'GET', url: '/v1/openapi.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    doc = res.json();
  });
  afterAll(async () => t?.close());

  const published = () =>
    routes.filter((r) => !(r.schema as { hide?: boolean } | undefined)?.hide && [r.method].flat()[0] !== 'HEAD');

  it('is a valid OpenAPI 3.1 document for API version 1.0.0', async () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe('1.0.0');
    await validate(doc);
  });

  it('declares the bearer scheme and requires it by default', () => {
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
  });

  it('publishes every non-hidden route with every response status of its schema', () => {
    expect(published().length).toBeGreaterThan(0);
    for (const route of published()) {
      for (const method of [route.method].flat()) {
        const where = `${method} ${route.url}`;
        const op = doc.paths[openApiPath(route.url)]?.[method.toLowerCase()];
        expect(op, where).toBeDefined();
        const declared = Object.keys((route.schema?.response as Record<string, unknown> | undefined) ?? {});
        for (const status of declared) expect(Object.keys(op?.responses ?? {}), where).toContain(String(status));
        const cfg = route.config as { auth?: boolean } | undefined;
        if (cfg?.auth === false) {
          expect(op?.security, where).toEqual([]);
        } else {
          // The auth hook may answer these on any route that needs a key.
          expect(Object.keys(op?.responses ?? {}), where).toEqual(expect.arrayContaining(['401', '429', '500']));
          expect(op?.security, where).toBeUndefined();
        }
      }
    }
  });

  it('publishes nothing else: no hidden route, every path under /v1', () => {
    const expected = new Set(published().map((r) => openApiPath(r.url)));
    expect(new Set(Object.keys(doc.paths))).toEqual(expected);
    for (const path of Object.keys(doc.paths)) expect(path.startsWith('/v1/'), path).toBe(true);
    for (const hidden of ['/healthz', '/readyz', '/metrics', '/v1/openapi.json'])
      expect(doc.paths[hidden]).toBeUndefined();
  });

  it('serves the docs page without a key', async () => {
    let res = await t.request({ method: 'GET', url: '/docs' });
    if (res.statusCode === 302) res = await t.request({ method: 'GET', url: String(res.headers.location) });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.body).toMatch(/<html/i);
    const asset = await t.request({ method: 'GET', url: '/docs/static/swagger-ui.css' });
    expect(asset.statusCode).toBe(200);
  });

  it('describes every operation, gives every body an example, marks console-only routes, documents Prefer: wait', () => {
    const ops = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, op]) => ({ where: `${method.toUpperCase()} ${path}`, op: op as Json })),
    );
    for (const { where, op } of ops) {
      expect(op.description, where).toEqual(expect.any(String));
      expect(op.description.length, where).toBeGreaterThan(20);
      const media = op.requestBody?.content?.['application/json'];
      if (media) {
        const examples =
          media.example !== undefined ? [media.example] : Object.values<Json>(media.examples ?? {}).map((e) => e.value);
        expect(examples.length, `${where} has no request example`).toBeGreaterThan(0);
        // Each example is one the route accepts.
        const check = makeAjv(false).compile(media.schema);
        for (const example of examples) {
          expect(check(structuredClone(example)), `${where}: ${JSON.stringify(check.errors)}`).toBe(true);
        }
      }
      if ((op.tags ?? []).includes('console')) expect(op.description, where).toMatch(/^Console only/);
    }
    const forge = (doc.paths['/v1/scene-forges/{id}'] as Json).get;
    expect(forge.parameters.some((p: Json) => p.in === 'header' && p.name === 'prefer')).toBe(true);
    const create = (doc.paths['/v1/brands/{brandId}/scene-forges'] as Json).post;
    expect(create.requestBody.content['application/json'].example).toMatchObject({
      blendingPrompt: expect.any(String),
      productAssetIds: [expect.stringMatching(/^[0-9a-f-]{36}$/)],
    });
  });

  it('shows the product’s mark on the docs page, not the framework’s logo', async () => {
    const init = await t.request({ method: 'GET', url: '/docs/static/swagger-initializer.js' });
    expect(init.statusCode).toBe(200);
    const data = /data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/.exec(init.body);
    expect(Buffer.from(data?.[1] ?? '', 'base64').toString()).toContain('Atelier');
  });
});

describe('OpenAPI generation rules', () => {
  it('publishes public routes with security: [] and adds the statuses the shared hooks answer', async () => {
    const app = Fastify();
    await installOpenApi(app, { publicUrl: 'http://localhost:8080' });
    const ok = { 200: Type.Object({ ok: Type.Boolean() }) };
    const handler = async () => ({ ok: true });
    app.get('/v1/public', { config: { auth: false }, schema: { response: ok } }, handler);
    app.get('/v1/read', { schema: { response: ok } }, handler);
    app.post('/v1/write', { config: { permission: 'brands:write' }, schema: { response: ok } }, handler);
    app.get('/v1/gated', { config: { feature: 'brand_dna' }, schema: { response: ok } }, handler);
    app.post('/v1/console', { config: { surface: 'console' }, schema: { response: ok } }, handler);
    app.delete('/v1/body-less', { schema: { response: ok } }, handler);
    app.get('/v1/hidden', { schema: { hide: true } }, handler);
    await app.ready();
    const doc = app.swagger() as unknown as OpenApiDoc;
    await app.close();
    await validate(doc);
    const statuses = (path: string, method: string) => Object.keys(doc.paths[path]?.[method]?.responses ?? {}).sort();
    expect(doc.paths['/v1/public']?.get?.security).toEqual([]);
    expect(statuses('/v1/public', 'get')).toEqual(['200', '500']);
    expect(doc.paths['/v1/read']?.get?.security).toBeUndefined();
    expect(statuses('/v1/read', 'get')).toEqual(['200', '401', '429', '500']);
    // A method with a body: the body parser may answer 400, 413 and 415, even without a body schema.
    expect(statuses('/v1/write', 'post')).toEqual(['200', '400', '401', '403', '413', '415', '429', '500']);
    expect(statuses('/v1/body-less', 'delete')).toEqual(['200', '400', '401', '403', '413', '415', '429', '500']);
    // Console-only: the auth hook answers before any body is read.
    expect(statuses('/v1/console', 'post')).toEqual(['200', '401', '403', '429', '500']);
    // Every 429 carries Retry-After (the spec).
    const tooMany = doc.paths['/v1/read']?.get?.responses['429'] as { headers?: Record<string, unknown> };
    expect(Object.keys(tooMany.headers ?? {})).toEqual(['Retry-After']);
    expect(statuses('/v1/gated', 'get')).toEqual(['200', '401', '403', '429', '500']);
    expect(doc.paths['/v1/hidden']).toBeUndefined();
  });
});
