import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { productFixture } from './helpers/generation.ts';
import { createBrand, uploadCompleteAssets } from './helpers/upload.ts';

/**
 * Bad input and broken object-level authorization, over every route of the developer surface
 * (enumerated from the served OpenAPI document, so a new route is covered as soon as it exists):
 * - fuzzing: bodies, queries and path parameters shaped by each route's own schema, then mutated
 *   (wrong types, extra members, huge and odd strings), ≥ 5,000 requests: never a 5xx, always the
 *   spec's error body with a requestId;
 * - BOLA: every route called with a second organization's key on the first one's real ids: never
 *   a 2xx, a read is always 404, and nothing of the first organization changes;
 * - 50 concurrent creates against a small cap never go over it.
 */
// biome-ignore lint/suspicious/noExplicitAny: schemas and bodies are walked generically
type Json = any;

interface Operation {
  method: string;
  path: string;
  params: string[];
  query?: Json;
  body?: Json;
}

const SKIP_TAGS = new Set(['console', 'Storage']);
const FUZZ_RUNS = Number(process.env.FUZZ_RUNS ?? 5200);

function operationsOf(doc: Json): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries<Json>(doc.paths)) {
    for (const [method, op] of Object.entries<Json>(methods)) {
      if ((op.tags ?? []).some((t: string) => SKIP_TAGS.has(t))) continue;
      const params = (op.parameters ?? []).filter((p: Json) => p.in === 'path').map((p: Json) => p.name as string);
      const queryParams = (op.parameters ?? []).filter((p: Json) => p.in === 'query');
      const query = queryParams.length
        ? { type: 'object', properties: Object.fromEntries(queryParams.map((p: Json) => [p.name, p.schema ?? {}])) }
        : undefined;
      const body = op.requestBody?.content?.['application/json']?.schema;
      ops.push({ method: method.toUpperCase(), path, params, ...(query ? { query } : {}), ...(body ? { body } : {}) });
    }
  }
  return ops;
}

/** Resolves `$ref`s of the document's components. */
const deref = (doc: Json, s: Json): Json =>
  s?.$ref
    ? deref(
        doc,
        s.$ref
          .split('/')
          .slice(1)
          .reduce((o: Json, k: string) => o?.[k], doc),
      )
    : s;

const nasty = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('', ' ', '\u0000', '../../etc/passwd', '%00', '<script>', '\u202e', 'null', '-1', '1e309', '𝓤'),
  fc.string({ minLength: 3000, maxLength: 6000 }),
);

/** A value for a schema: usually well-typed (to reach deeper checks), sometimes anything. */
function schemaValue(doc: Json, schema: Json, depth = 0): fc.Arbitrary<unknown> {
  const s = deref(doc, schema) ?? {};
  const wrong = depth > 3 ? fc.constant(null) : fc.oneof(fc.jsonValue({ maxDepth: 2 }), nasty);
  let right: fc.Arbitrary<unknown>;
  if (Array.isArray(s.anyOf ?? s.oneOf)) {
    right = fc.oneof(...(s.anyOf ?? s.oneOf).map((x: Json) => schemaValue(doc, x, depth + 1)));
  } else if (s.enum) {
    right = fc.constantFrom(...s.enum);
  } else if (s.type === 'string' && s.format === 'uuid') {
    right = fc.uuid();
  } else if (s.type === 'string') {
    right = fc.oneof(fc.string({ minLength: s.minLength ?? 0, maxLength: Math.min(s.maxLength ?? 60, 60) }), nasty);
  } else if (s.type === 'integer' || s.type === 'number') {
    right = fc.oneof(
      fc.integer({ min: s.minimum ?? -5, max: Math.min(s.maximum ?? 5000, 5000) }),
      fc.constantFrom(0, -1, 1.5, 2 ** 53, Number.MAX_SAFE_INTEGER),
    );
  } else if (s.type === 'boolean') {
    right = fc.boolean();
  } else if (s.type === 'array') {
    right = fc.array(schemaValue(doc, s.items ?? {}, depth + 1), { maxLength: 6 });
  } else if (s.type === 'object' || s.properties) {
    right = objectOf(doc, s, depth + 1);
  } else {
    right = fc.jsonValue({ maxDepth: 2 });
  }
  return fc.oneof({ weight: 4, arbitrary: right }, { weight: 1, arbitrary: wrong });
}

function objectOf(doc: Json, schema: Json, depth = 0): fc.Arbitrary<Record<string, unknown>> {
  const s = deref(doc, schema) ?? {};
  const props = Object.entries<Json>(s.properties ?? {});
  const known = fc.record(Object.fromEntries(props.map(([k, v]) => [k, schemaValue(doc, v, depth)])), {
    requiredKeys: (s.required ?? []).filter((k: string) => props.some(([p]) => p === k)),
  });
  return fc.oneof(
    { weight: 5, arbitrary: known },
    {
      weight: 1,
      arbitrary: fc
        .tuple(known, fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }))
        .map(([a, b]) => ({ ...b, ...a })),
    },
  );
}

describe('abuse: fuzzing, BOLA and concurrent caps over every route', () => {
  let t: TestApp;
  let doc: Json;
  let ops: Operation[];
  let keyA: string;
  let keyB: string;
  const ids: Record<string, string> = {};

  const call = (method: string, url: string, key: string, payload?: unknown) =>
    t.request({
      method: method as 'GET',
      url,
      key,
      ...(payload !== undefined
        ? { payload: JSON.stringify(payload), headers: { 'content-type': 'application/json' } }
        : {}),
    });

  beforeAll(async () => {
    t = await createTestApp('sqlite');
    keyA = (await t.bootstrap({ orgName: 'Victim' })).apiKey;
    keyB = (await t.bootstrap({ orgName: 'Attacker' })).apiKey;
    await t.deps.startWorkers();
    doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    ops = operationsOf(doc);

    // The victim's resources, one of each kind a path parameter can name.
    ids.brandId = await createBrand(t, keyA, 'Victim');
    ids.assetId = (
      await uploadCompleteAssets(t, keyA, ids.brandId, [
        { name: 'cap.png', type: 'image/png', bytes: productFixture('solidus_cap_red_1.png') },
      ])
    )[0] as string;
    const post = async (url: string, body: unknown) => {
      const res = await call('POST', url, keyA, body);
      expect(res.statusCode, `${url}: ${res.body}`).toBeLessThan(300);
      return res.json();
    };
    const init = await post('/v1/assets/initiate-upload', {
      brandId: ids.brandId,
      files: [{ fileName: 'later.png', fileType: 'image/png', fileSize: 10 }],
    });
    ids.uploadId = init.uploads[0].uploadId;
    ids.extractionId = (
      await post('/v1/assets/extract-from-url', { brandId: ids.brandId, url: 'https://example.invalid/p' })
    ).extractionId;
    ids.versionId = (
      await post(`/v1/brands/${ids.brandId}/brand-dna/versions`, { name: 'v', assetIds: [ids.assetId] })
    ).data.versionId;
    const forge = await post(`/v1/brands/${ids.brandId}/scene-forges`, {
      blendingPrompt: 'The cap',
      promptIsEnhanced: false,
      productAssetIds: [ids.assetId],
    });
    ids.forgeId = forge.sceneForgeId;
    ids.generatedImageId = forge.variations[0].generatedImageId;
    ids.environmentId = (
      await post(`/v1/brands/${ids.brandId}/environment-generations`, { prompt: 'A wall' })
    ).environmentGenerationId;
    ids.sceneEnhancementId = (
      await post(`/v1/brands/${ids.brandId}/scene-forge-prompt-enhancements`, { originalPrompt: 'the cap' })
    ).promptEnhancementId;
    ids.generatedVideosGroupId = (
      await post(`/v1/brands/${ids.brandId}/generate-video`, {
        startImageAssetId: ids.assetId,
        userPrompts: ['push-in'],
        dimension: { width: 320, height: 256 },
        duration: 1,
      })
    ).data[0].generatedVideosGroupId;
    ids.videoEnhancementId = (
      await post(`/v1/brands/${ids.brandId}/image-to-video-prompt-enhancements`, {
        startFrameAssetId: ids.assetId,
        originalPrompt: 'the cap',
        aspectRatio: '16:9',
        model: 'video-model-7',
      })
    ).promptEnhancementId;
    ids.endpointId = (await post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/victim' })).id;
  }, 180_000);

  afterAll(async () => {
    await t?.close();
  });

  /** The victim's id for a path parameter of this route. */
  function idFor(path: string, name: string): string {
    if (name !== 'id') return ids[name] ?? ids.brandId!;
    if (path.includes('/scene-forges/')) return ids.forgeId!;
    if (path.includes('/environment-generations/')) return ids.environmentId!;
    if (path.includes('/scene-forge-prompt-enhancements/')) return ids.sceneEnhancementId!;
    if (path.includes('/image-to-video-prompt-enhancements/')) return ids.videoEnhancementId!;
    throw new Error(`no id for ${path} {${name}}`);
  }
  const fill = (op: Operation, value: (name: string) => string) =>
    op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(value(name)));

  it('answers every fuzzed request below 500, in the error body with a requestId', async () => {
    expect(ops.length).toBeGreaterThan(30);
    const arbitraries = ops.map((op) =>
      fc.record({
        op: fc.constant(op),
        params: fc.array(
          fc.oneof(
            { weight: 3, arbitrary: fc.constantFrom('victim') },
            { weight: 2, arbitrary: fc.uuid() },
            { weight: 1, arbitrary: nasty },
          ),
          { minLength: op.params.length, maxLength: op.params.length },
        ),
        query: op.query ? objectOf(doc, op.query) : fc.constant(undefined),
        body: op.body
          ? fc.oneof(
              { weight: 6, arbitrary: objectOf(doc, op.body) },
              { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
            )
          : fc.constant(undefined),
      }),
    );
    let sent = 0;
    const problems: string[] = [];
    await fc.assert(
      fc.asyncProperty(fc.oneof(...arbitraries), async ({ op, params, query, body }) => {
        const url = fill(op, (name) => {
          const v = params[op.params.indexOf(name)];
          return v === 'victim' ? idFor(op.path, name) : String(v);
        });
        const qs = query
          ? `?${new URLSearchParams(
              Object.entries(query).map(([k, v]): [string, string] => [
                k,
                typeof v === 'string' ? v : String(JSON.stringify(v)),
              ]),
            ).toString()}`
          : '';
        const res = await call(op.method, url + qs, keyA, op.body ? body : undefined);
        sent++;
        if (res.statusCode >= 500)
          problems.push(
            `${op.method} ${url}${qs} ${JSON.stringify(body)?.slice(0, 300)} → ${res.statusCode} ${res.body.slice(0, 300)}`,
          );
        if (res.statusCode >= 400 && res.statusCode < 500) {
          const b = res.json();
          if (!b?.error?.code || !/^[0-9a-f-]{36}$/.test(b.requestId ?? ''))
            problems.push(`${op.method} ${op.path}: error body ${res.body.slice(0, 200)}`);
        }
        return true;
      }),
      { numRuns: FUZZ_RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261124) },
    );
    expect(problems.slice(0, 5)).toEqual([]);
    expect(sent).toBeGreaterThanOrEqual(Math.min(FUZZ_RUNS, 5000));
  }, 600_000);

  it('never lets another organization read, change or start anything with the victim’s ids', async () => {
    const before = (await call('GET', `/v1/brands/${ids.brandId}`, keyA)).json();
    const leaks: string[] = [];
    for (const op of ops) {
      if (op.params.length === 0) continue;
      const url = fill(op, (name) => idFor(op.path, name));
      const body = op.body ? {} : undefined;
      const res = await call(op.method, url, keyB, body);
      if (res.statusCode < 300) leaks.push(`${op.method} ${url} → ${res.statusCode}`);
      if (op.method === 'GET' && res.statusCode !== 404)
        leaks.push(`${op.method} ${url} → ${res.statusCode} (not 404)`);
      if (res.statusCode >= 500) leaks.push(`${op.method} ${url} → ${res.statusCode}`);
    }
    // Bodies naming the victim's assets in the attacker's own brand.
    const own = await createBrand(t, keyB, 'Attacker');
    const uses: [string, unknown][] = [
      [
        `/v1/brands/${own}/scene-forges`,
        { blendingPrompt: 'x', promptIsEnhanced: false, productAssetIds: [ids.assetId] },
      ],
      [
        `/v1/brands/${own}/generate-video`,
        { startImageAssetId: ids.assetId, userPrompts: ['x'], dimension: { width: 320, height: 256 } },
      ],
      [`/v1/brands/${own}/brand-dna/versions`, { name: 'v', assetIds: [ids.assetId] }],
      [`/v1/brands/${own}/scene-forge-prompt-enhancements`, { originalPrompt: 'x', productAssetIds: [ids.assetId] }],
      ['/v1/assets/confirm-upload', { uploadId: ids.uploadId }],
      [
        '/v1/assets/initiate-upload',
        { brandId: ids.brandId, files: [{ fileName: 'a.png', fileType: 'image/png', fileSize: 10 }] },
      ],
    ];
    for (const [url, body] of uses) {
      const res = await call('POST', url, keyB, body);
      if (res.statusCode < 300 || res.statusCode >= 500)
        leaks.push(`POST ${url} → ${res.statusCode} ${res.body.slice(0, 200)}`);
    }
    expect(leaks).toEqual([]);
    expect((await call('GET', `/v1/brands/${ids.brandId}`, keyA)).json()).toEqual(before);
  });

  it('never goes over a cap under 50 concurrent creates', async () => {
    const { apiKey, organizationId } = await t.bootstrap({ plan: 'free', orgName: 'Capped' });
    const brandId = await createBrand(t, apiKey, 'Capped');
    const cap = (await call('GET', '/v1/organizations/current/feature-usage', apiKey)).json().data.pools
      .environment_generations.cap as number;
    expect(cap).toBeLessThan(50);
    const answers = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        call('POST', `/v1/brands/${brandId}/environment-generations`, apiKey, { prompt: `Wall ${i}` }),
      ),
    );
    const accepted = answers.filter((r) => r.statusCode === 202).length;
    const refused = answers.filter((r) => r.statusCode === 403 && r.json().error.code === 'QUOTA_EXCEEDED').length;
    expect(accepted).toBe(cap);
    expect(refused).toBe(50 - cap);
    const used = (await t.deps.usage.periodUsage(organizationId)).used.environment_generations;
    expect(used).toBe(cap);
  }, 120_000);
});
