import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isPublicAddress } from '../src/adapters/fetch/address-policy.ts';
import { createFetcher } from '../src/adapters/fetch/fetcher.ts';
import { makeAjv } from '../src/adapters/validation/json-schema.ts';
import { ROUTE_TOOLS } from '../src/mcp/tools.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { productFixture } from './helpers/generation.ts';

/**
 * The agent-tool endpoint with the official MCP SDK client over real HTTP: tool listing, every
 * family of tools, a whole product-photo → scene → video flow with wait_for_task and its progress
 * notifications, resources, and the REST access rules (401 challenge, other organizations' ids,
 * validation errors as tool errors).
 */
// biome-ignore lint/suspicious/noExplicitAny: tool results are read field by field
type Json = any;

const MISSING = '0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b';

/** One JSON-RPC message POSTed as it is (no SDK client), with a key. */
const postRaw = (url: string, apiKey: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${apiKey}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2025-06-18',
    },
    body: JSON.stringify(body),
  });

describe('MCP server (Streamable HTTP, official SDK client)', () => {
  let t: TestApp;
  let base: string;
  let files: http.Server;
  let filesUrl: string;
  let key: string;
  let org: string;
  let otherKey: string;
  const clients: Client[] = [];

  async function connect(apiKey: string, path = '/mcp'): Promise<Client> {
    const client = new Client({ name: 'atelier-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${base}${path}`), {
      requestInit: { headers: { authorization: `Bearer ${apiKey}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  const call = async (client: Client, name: string, args: Json = {}) => {
    const r = (await client.callTool({ name, arguments: args })) as Json;
    return { isError: r.isError === true, data: r.structuredContent as Json, text: r.content?.[0]?.text as string };
  };
  const ok = async (client: Client, name: string, args: Json = {}) => {
    const r = await call(client, name, args);
    expect(r.isError, `${name}: ${r.text}`).toBe(false);
    return r.data;
  };

  beforeAll(async () => {
    const png = productFixture('solidus_cap_red_1.png');
    files = http.createServer((req, res) => {
      if (req.url === '/cap.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(png);
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    const filesPort = (files.address() as AddressInfo).port;
    filesUrl = `http://127.0.0.1:${filesPort}`;
    t = await createTestApp('sqlite', {
      fetcher: createFetcher({
        policy: (address, port) => (address === '127.0.0.1' && port === filesPort) || isPublicAddress(address),
      }),
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    ({ apiKey: key, organizationId: org } = await t.bootstrap({ orgName: 'Agent org' }));
    otherKey = (await t.bootstrap({ orgName: 'Other org' })).apiKey;
    await t.deps.startWorkers();
  }, 120_000);

  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => undefined);
    await t?.close();
    await new Promise((r) => files?.close(r));
  });

  it('lists one tool per capability, each with the REST route’s own input schema', async () => {
    // An agent's context is the budget: the default list (core toolset) stays under 20 KB.
    const core = (await (await connect(key)).listTools()).tools;
    expect(JSON.stringify(core).length).toBeLessThan(20_000);
    const coreNames = core.map((x) => x.name);
    for (const tool of ROUTE_TOOLS) {
      if ((tool.toolset ?? 'core') === 'core') expect(coreNames).toContain(tool.name);
      else expect(coreNames).not.toContain(tool.name);
    }
    for (const extra of ['assets_upload_from_url', 'assets_upload_base64', 'get_task', 'wait_for_task']) {
      expect(coreNames).toContain(extra);
    }
    // Toolsets are asked for by name, or all; an unknown one is a 400 naming the member.
    const some = (await (await connect(key, '/mcp?toolsets=core,webhooks')).listTools()).tools.map((x) => x.name);
    expect(some).toContain('webhooks_create');
    expect(some).not.toContain('dna_version_update');
    const client = await connect(key, '/mcp?toolsets=all');
    const { tools } = await client.listTools();
    const names = tools.map((x) => x.name);
    for (const tool of ROUTE_TOOLS) expect(names).toContain(tool.name);
    expect(JSON.stringify(tools).length).toBeLessThan(27_000);
    const bad = await postRaw(`${base}/mcp?toolsets=core,everything`, key, {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(await bad.json())).toMatch(/toolsets/);
    // A tool outside the listed toolsets can still be called (the list is what is offered).
    expect((await call(await connect(key), 'webhooks_list')).isError).toBe(false);
    // A key sees the tools its role may call: a viewer's agent is offered no writes.
    const viewer = await t.deps.access.addUser({ organizationId: org, name: 'Vi', role: 'viewer' });
    const viewerKey = (await t.deps.access.createKey({ userId: viewer.id, name: 'agent' })).token;
    const seen = (await (await connect(viewerKey, '/mcp?toolsets=all')).listTools()).tools.map((x) => x.name);
    expect(seen).toContain('brands_list');
    expect(seen).toContain('wait_for_task');
    for (const write of ['brands_create', 'scenes_create', 'webhooks_create', 'assets_upload_from_url']) {
      expect(seen).not.toContain(write);
    }
    const scenes = tools.find((x) => x.name === 'scenes_create')!;
    expect(scenes.inputSchema.required).toEqual(['brandId', 'blendingPrompt']);
    // Optional members are optional (defaults), ids are named for what they are.
    expect(tools.find((x) => x.name === 'brands_list')!.inputSchema.required ?? []).toEqual([]);
    expect(tools.find((x) => x.name === 'scenes_refine')!.inputSchema.required).toContain('sceneForgeId');
    const model = (tools.find((x) => x.name === 'videos_generate')!.inputSchema.properties as Json).model;
    expect(model.description).toMatch(/-8: from reference/);
    expect((scenes.inputSchema.properties as Json).blendingPrompt).toMatchObject({ type: 'string', maxLength: 2500 });
    expect(scenes.description).toMatch(/wait_for_task/);
    const video = tools.find((x) => x.name === 'videos_generate')!;
    expect(Object.keys(video.inputSchema.properties as Json)).toEqual(
      expect.arrayContaining(['brandId', 'startImageAssetId', 'userPrompts', 'dimension', 'model', 'duration']),
    );
    // Every route of the developer surface has its tool (console-only and signed-link routes do not).
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json() as Json;
    const covered = new Set(ROUTE_TOOLS.map((x) => `${x.method} ${x.url.replace(/:(\w+)/g, '{$1}')}`));
    // Reads of one pollable resource are get_task / wait_for_task; the legacy flat DNA view is dna_active_get's.
    for (const read of [
      '/v1/assets/{assetId}',
      '/v1/assets/extract-from-url/{extractionId}',
      '/v1/brands/{brandId}/brand-dna/versions/{versionId}',
      '/v1/scene-forges/{id}',
      '/v1/environment-generations/{id}',
      '/v1/brands/{brandId}/scene-forge-prompt-enhancements/{id}',
      '/v1/generated-videos-groups/{generatedVideosGroupId}',
      '/v1/brands/{brandId}/image-to-video-prompt-enhancements/{id}',
      '/v1/brands/{brandId}/dna',
    ]) {
      covered.add(`GET ${read}`);
    }
    for (const [path, ops] of Object.entries<Json>(doc.paths)) {
      for (const [method, op] of Object.entries<Json>(ops)) {
        if ((op.tags ?? []).some((tag: string) => tag === 'console' || tag === 'Storage')) continue;
        expect(covered, `${method.toUpperCase()} ${path} has no tool`).toContain(`${method.toUpperCase()} ${path}`);
      }
    }
    // No cross-tenant switch is offered to an agent, even on an operator's key.
    const brandsList = tools.find((x) => x.name === 'brands_list')!;
    expect(Object.keys(brandsList.inputSchema.properties as Json)).not.toContain('all_organizations');
    expect(brandsList.inputSchema.required ?? []).not.toContain('all_organizations');
    const operator = await t.bootstrap({ orgName: 'Operator org' });
    await t.deps.access.setOperator(operator.userId, true);
    const r = await call(await connect(operator.apiKey), 'brands_list', { all_organizations: true });
    expect(r.data.error).toMatchObject({ status: 400, code: 'INVALID_REQUEST', fields: ['all_organizations'] });
    // Both paths serve the same server.
    const v1 = await connect(key, '/v1/mcp?toolsets=all');
    expect((await v1.listTools()).tools).toHaveLength(tools.length);
  });

  it('goes from a product photo to a scene and a video with tools alone, waiting with progress', async () => {
    const client = await connect(key);
    const sizes: Record<string, number> = {};
    // Every argument object of the quickstart fits the schema the tool list gives the agent.
    const listed = new Map((await client.listTools()).tools.map((x) => [x.name, x.inputSchema]));
    const ajv = makeAjv(false);
    const ok = async (c: Client, name: string, args: Json = {}) => {
      const check = ajv.compile(listed.get(name) as object);
      expect(check(structuredClone(args)), `${name}: ${JSON.stringify(check.errors)}`).toBe(true);
      const r = await call(c, name, args);
      expect(r.isError, `${name}: ${r.text}`).toBe(false);
      // One text item, pure JSON, small enough for an agent's context.
      expect(JSON.parse(r.text)).toEqual(r.data);
      sizes[name] = Math.max(sizes[name] ?? 0, r.text.length);
      return r.data;
    };
    const brand = await ok(client, 'brands_create', {
      name: 'Solidus',
      industry: 'Apparel',
      description: 'Caps and merchandise for the agent test.',
      mission: '',
      values: [],
      tone: [],
      voice: [],
    });
    const uploaded = await ok(client, 'assets_upload_from_url', { brandId: brand.id, url: `${filesUrl}/cap.png` });
    const asset = await ok(client, 'wait_for_task', { kind: 'asset', id: uploaded.id, timeoutSeconds: 60 });
    expect(asset).toMatchObject({ done: true, status: 'complete' });

    const forge = await ok(client, 'scenes_create', {
      brandId: brand.id,
      blendingPrompt: 'The cap on a sunlit wooden table',
      promptIsEnhanced: false,
      aspectRatio: '4:3',
      productAssetIds: [uploaded.id],
    });
    expect(forge.status).toBe('pending');
    const progress: number[] = [];
    const done = (await client.callTool(
      { name: 'wait_for_task', arguments: { kind: 'scene_forge', id: forge.sceneForgeId, timeoutSeconds: 120 } },
      undefined,
      { onprogress: (p) => progress.push(p.progress), timeout: 150_000 },
    )) as Json;
    expect(done.isError).toBeFalsy();
    expect(done.structuredContent).toMatchObject({ done: true, status: 'completed' });
    expect(done.content).toHaveLength(1);
    sizes.wait_for_scene_forge = done.content[0].text.length;
    // The compact view keeps what an agent acts on; view "full" gives the REST answer.
    expect(done.structuredContent.resource.variations[0].critique[0]).toMatchObject({
      score_name: expect.any(String),
      summary: expect.stringMatching(/\/100/),
    });
    const full = (await ok(client, 'get_task', { kind: 'scene_forge', id: forge.sceneForgeId, view: 'full' })).resource;
    expect(full.variations[0].critique.recommendations.length).toBeGreaterThan(0);
    sizes.get_task = 0; // the full view was asked for: not bounded
    await ok(client, 'scenes_refine', {
      sceneForgeId: forge.sceneForgeId,
      generatedImageId: full.variations.find((v: Json) => v.status === 'completed').generatedImageId,
    });
    await ok(client, 'wait_for_task', { kind: 'scene_forge', id: forge.sceneForgeId, timeoutSeconds: 120 });
    await ok(client, 'scenes_list', { brandId: brand.id });
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.at(-1)).toBe(100);
    const variation = done.structuredContent.resource.variations.find((v: Json) => v.status === 'completed');
    expect(variation.asset.url).toMatch(/^http/);

    // The signed link works, and the resource gives fresh ones.
    const image = await fetch(variation.asset.url.replace(/^http:\/\/localhost:8080/, base));
    expect(image.status).toBe(200);
    expect((await sharp(Buffer.from(await image.arrayBuffer())).metadata()).format).toBe('png');
    const resource = await client.readResource({ uri: `atelier://assets/${variation.asset.assetId}` });
    expect(JSON.parse((resource.contents[0] as Json).text)).toMatchObject({
      id: variation.asset.assetId,
      status: 'complete',
    });
    expect((await client.listResourceTemplates()).resourceTemplates[0]!.uriTemplate).toBe('atelier://assets/{assetId}');

    const videos = await ok(client, 'videos_generate', {
      brandId: brand.id,
      startImageAssetId: variation.asset.assetId,
      userPrompts: ['Slow push-in on the cap'],
      dimension: { width: 640, height: 480 },
      model: 'video-model-7',
      duration: 2,
    });
    const group = await ok(client, 'wait_for_task', {
      kind: 'video_group',
      id: videos.data[0].generatedVideosGroupId,
      timeoutSeconds: 120,
    });
    expect(group).toMatchObject({ done: true, status: 'completed' });
    expect(group.resource.variations[0].asset).toMatchObject({ assetType: 'video' });

    const usage = await ok(client, 'usage_get');
    expect(usage.data.pools.video_seconds.usage).toBe(2);
    for (const [name, size] of Object.entries(sizes))
      expect(size, `${name} answered ${size} bytes`).toBeLessThan(8_000);
  }, 240_000);

  it('calls every route tool: each reaches its REST route (its answer or its REST error, with a requestId)', async () => {
    const client = await connect(key, '/mcp?toolsets=all');
    const { tools } = await client.listTools();
    const brandId = (await ok(client, 'brands_list')).data?.[0]?.id ?? MISSING;
    const sample = (name: string, schema: Json): unknown => {
      if (name === 'brandId') return brandId;
      if (name.endsWith('Id')) return MISSING;
      if (schema.enum) return schema.enum[0];
      switch (schema.type) {
        case 'string':
          return 'x';
        case 'integer':
        case 'number':
          return schema.minimum ?? 1;
        case 'boolean':
          return false;
        case 'array':
          return [];
        case 'object':
          return {};
        default:
          return 'x';
      }
    };
    for (const tool of ROUTE_TOOLS) {
      const schema = tools.find((x) => x.name === tool.name)!.inputSchema as Json;
      const args = Object.fromEntries((schema.required ?? []).map((n: string) => [n, sample(n, schema.properties[n])]));
      const r = await call(client, tool.name, args);
      if (r.isError) {
        expect(r.data.error.requestId, `${tool.name}: ${r.text}`).toMatch(/^[0-9a-f-]{36}$/);
        expect([400, 404, 409, 412, 422], `${tool.name}: ${r.text}`).toContain(r.data.error.status);
      } else {
        expect(r.data, tool.name).toBeTypeOf('object');
      }
    }
  });

  it('answers errors as tool errors with the REST code, and keeps organizations apart', async () => {
    const client = await connect(key);
    const other = await connect(otherKey);
    const mine = await ok(client, 'brands_create', {
      name: 'Mine',
      industry: 'Retail',
      description: 'A brand another organization must not see.',
      mission: '',
      values: [],
      tone: [],
      voice: [],
    });
    let r = await call(other, 'brands_get', { brandId: mine.id });
    expect(r.isError).toBe(true);
    expect(r.data.error).toMatchObject({ status: 404, code: 'BRAND_NOT_FOUND' });
    expect(r.data.error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    r = await call(other, 'scenes_create', { brandId: mine.id, blendingPrompt: 'x', promptIsEnhanced: false });
    expect(r.data.error.code).toBe('BRAND_NOT_FOUND');
    r = await call(client, 'scenes_create', { brandId: mine.id, blendingPrompt: '', promptIsEnhanced: false });
    expect(r.data.error).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    r = await call(client, 'scenes_refine', { sceneForgeId: MISSING, generatedImageId: MISSING, nonsense: 1 });
    expect(r.data.error).toMatchObject({ status: 400, code: 'INVALID_REQUEST', fields: ['nonsense'] });
    r = await call(client, 'get_task', { kind: 'video_prompt_enhancement', id: MISSING });
    expect(r.data.error.message).toMatch(/brandId is required/);
    r = await call(client, 'assets_upload_from_url', {
      brandId: mine.id,
      url: 'http://169.254.169.254/latest/meta-data',
    });
    expect(r.data.error.code).toBe('URL_NOT_FETCHED');
    r = await call(client, 'no_such_tool');
    expect(r.data.error.code).toBe('UNKNOWN_TOOL');
    // Brand updates carry the ETag rule.
    r = await call(client, 'brands_update', {
      brandId: mine.id,
      ifMatch: '"999"',
      name: 'Renamed',
      industry: 'Retail',
      description: 'A brand another organization must not see.',
      mission: '',
      values: [],
      tone: [],
      voice: [],
    });
    expect(r.data.error.status).toBe(412);
  });

  it('refuses batches, ids that are dot segments, malformed params (-32602) and unknown resources (-32002)', async () => {
    const post = async (body: unknown) => {
      const res = await postRaw(`${base}/mcp`, key, body);
      const text = await res.text();
      const line = text.split('\n').find((l) => l.startsWith('data: '));
      return { status: res.status, body: JSON.parse(line ? line.slice(6) : text) as Json };
    };
    const list = { jsonrpc: '2.0', method: 'tools/list' };
    const batch = await post(Array.from({ length: 100 }, (_, i) => ({ ...list, id: i })));
    expect(batch.status).toBe(400);
    expect(batch.body.error.code).toBe(-32600);
    expect(batch.body.error.message).toMatch(/batches are not supported/);
    for (const params of [{ name: 'brands_get', arguments: 'x' }, { arguments: {} }]) {
      const r = await post({ jsonrpc: '2.0', id: 9, method: 'tools/call', params });
      expect(r.body).toMatchObject({ id: 9, error: { code: -32602 } });
    }
    const client = await connect(key);
    const brand = await ok(client, 'brands_create', {
      name: 'Dots',
      industry: 'Retail',
      description: 'Ids that are dot segments must not reach other routes.',
      mission: '',
      values: [],
      tone: [],
      voice: [],
    });
    for (const [name, args] of [
      ['brands_get', { brandId: '.' }],
      ['brands_get', { brandId: '..' }],
      ['scenes_react', { sceneForgeId: '..', generatedImageId: MISSING, liked: true }],
      ['scenes_refine', { sceneForgeId: '', generatedImageId: MISSING }],
    ] as const) {
      const r = await call(client, name, args);
      expect(r.isError, `${name} ${JSON.stringify(args)}: ${r.text}`).toBe(true);
      expect(r.data.error).toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    }
    const task = await call(client, 'get_task', { kind: 'scene_prompt_enhancement', brandId: brand.id, id: '..' });
    expect(task.data.error).toMatchObject({ status: 400, fields: ['id'] });
    await expect(client.readResource({ uri: 'atelier://nope' })).rejects.toMatchObject({ code: -32002 });
    await expect(client.readResource({ uri: `atelier://assets/${MISSING}` })).rejects.toMatchObject({
      code: -32002,
      data: { code: 'ASSET_NOT_FOUND' },
    });
  });

  it('refuses a missing or bad key with 401 and a WWW-Authenticate challenge; GET is 405', async () => {
    const init = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } },
    };
    for (const headers of [{}, { authorization: 'Bearer atl_not_a_key' }] as Record<string, string>[]) {
      const res = await fetch(`${base}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(init),
      });
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(
        /^Bearer .*resource_metadata="[^"]+\/\.well-known\/oauth-protected-resource"/,
      );
      expect(((await res.json()) as Json).error.code).toBe('UNAUTHORIZED');
    }
    const meta = await (await fetch(`${base}/.well-known/oauth-protected-resource`)).json();
    expect(meta).toMatchObject({ bearer_methods_supported: ['header'] });
    await expect(connect('atl_bad')).rejects.toThrow();
    const get = await fetch(`${base}/mcp`, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    });
    expect(get.status).toBe(405);
  });
});

describe('MCP answer bytes count against the key (ATELIER_RATE_LIMIT_BYTES_*)', () => {
  let t: TestApp;
  let base: string;
  let key: string;
  beforeAll(async () => {
    t = await createTestApp('sqlite', {
      env: { ATELIER_RATE_LIMIT_BYTES_PER_SECOND: '1024', ATELIER_RATE_LIMIT_BYTES_BURST: '16384' },
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
    key = (await t.bootstrap()).apiKey;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses the key with 429 once its answers outran the budget, and only that key', async () => {
    const post = () => postRaw(`${base}/mcp`, key, { jsonrpc: '2.0', id: 1, method: 'tools/list' });
    const first = await post();
    expect(first.status).toBe(200);
    expect((await first.text()).length).toBeGreaterThan(16_384);
    const second = await post();
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(((await second.json()) as Json).error.code).toBe('RATE_LIMITED');
    const other = (await t.bootstrap({ orgName: 'Other' })).apiKey;
    const res = await t.request({ method: 'GET', url: '/v1/brands', key: other });
    expect(res.statusCode).toBe(200);
  });
});
