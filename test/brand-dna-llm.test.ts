import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetcher } from '../src/adapters/fetch/fetcher.ts';
import { ConfigError, loadConfig } from '../src/config.ts';
import {
  createLocalTextAnalyzer,
  createOpenAiCompatibleAnalyzer,
  createTextAnalyzer,
  TextEngineError,
  type TextAnalysisInput,
  withFallback,
} from '../src/engines/text/index.ts';
import { BRANDS } from './fixtures/brands/brands.ts';
import { type BrandSites, startBrandSites } from './fixtures/brands/site-server.ts';
import { createTestApp, type TestApp } from './helpers/app.ts';
import { eventually } from './helpers/assets.ts';
import { createBrand } from './helpers/upload.ts';

/** What the fake model answers (the `content` of the first choice). */
const ANSWER = {
  brand_name: 'Fake Brand',
  tagline: 'Made up, on purpose',
  mission: 'MISSION FROM THE MODEL',
  values: ['Candour', 'Candour', 'x'.repeat(80)],
  industry: 'Testing',
  audience: { description: 'People who read test suites', segments: ['engineers'] },
  tone: [
    { tone: 'Playful', weight: 2 },
    { tone: 'Casual', weight: 2 },
  ],
  descriptors: ['Cheeky'],
  formality: 1.4,
  words_to_use: ['fixture'],
  words_to_avoid: ['mock'],
};

interface Recorded {
  path: string;
  headers: http.IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: request JSON is read field by field
  body: Record<string, any>;
}

/** A server speaking the OpenAI chat-completions protocol; `mode` picks the answer. */
async function startFakeModel() {
  const requests: Recorded[] = [];
  let mode: 'ok' | 'fenced' | 'bad-schema' | 'http-500' | 'refusal' | 'not-json' = 'ok';
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => {
      raw += c;
    });
    req.on('end', () => {
      requests.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(raw || '{}') });
      const reply = (status: number, body: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      const choice = (message: Record<string, unknown>) =>
        reply(200, {
          id: 'x',
          object: 'chat.completion',
          choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }],
        });
      if (mode === 'http-500') return reply(500, { error: { message: 'the model is overloaded' } });
      if (mode === 'not-json') return res.writeHead(200).end('<html>');
      if (mode === 'refusal') return choice({ content: null, refusal: 'I cannot help with that' });
      if (mode === 'bad-schema') return choice({ content: JSON.stringify({ ...ANSWER, tone: 'happy' }) });
      if (mode === 'fenced') return choice({ content: `\`\`\`json\n${JSON.stringify(ANSWER)}\n\`\`\`` });
      return choice({ content: JSON.stringify(ANSWER) });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    baseUrl,
    requests,
    setMode: (m: typeof mode) => {
      mode = m;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

const INPUT: TextAnalysisInput = {
  brandName: 'Acme',
  declaredNames: ['Acme'],
  blocks: [
    { kind: 'paragraph', text: 'We make anvils.' },
    { kind: 'mission', text: 'Our mission is to drop anvils precisely.' },
  ],
};

describe('OpenAI-compatible text engine', () => {
  let fake: Awaited<ReturnType<typeof startFakeModel>>;
  const fetcher = createFetcher({ allowPrivate: true });
  beforeAll(async () => {
    fake = await startFakeModel();
  });
  afterAll(async () => fake?.close());

  it('sends a chat completion with a strict JSON-schema response format and reads the answer', async () => {
    fake.setMode('ok');
    const engine = createOpenAiCompatibleAnalyzer(
      { baseUrl: `${fake.baseUrl}/`, apiKey: 'sk-test', model: 'fake-1' },
      fetcher,
    );
    const a = await engine.analyze(INPUT);
    const r = fake.requests.at(-1)!;
    expect(r.path).toBe('/v1/chat/completions');
    expect(r.headers.authorization).toBe('Bearer sk-test');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.body.model).toBe('fake-1');
    expect(r.body.temperature).toBe(0);
    expect(r.body.response_format.type).toBe('json_schema');
    expect(r.body.response_format.json_schema.strict).toBe(true);
    const schema = r.body.response_format.json_schema.schema;
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required.sort()).toEqual(Object.keys(ANSWER).sort());
    expect(r.body.messages[0].role).toBe('system');
    const user = JSON.parse(r.body.messages[1].content);
    expect(user.blocks[0]).toEqual({ kind: 'mission', text: 'Our mission is to drop anvils precisely.' }); // stated sections first
    expect(user.brand_name_hint).toBe('Acme');

    expect(a.engine).toBe('openai-compatible:fake-1');
    expect(a.mission?.value).toBe('MISSION FROM THE MODEL');
    expect(a.values).toEqual(['Candour', 'x'.repeat(50)]); // deduplicated, cut to 50
    expect(a.tone).toEqual([
      { tone: 'Playful', weight: 0.5 },
      { tone: 'Casual', weight: 0.5 },
    ]);
    expect(a.formality).toBe(1); // clamped
    expect(a.descriptors).toEqual(['cheeky']);
    expect(a.audience?.value).toEqual({ description: 'People who read test suites', segments: ['engineers'] });
  });

  it('accepts an answer wrapped in a Markdown fence, and sends no Authorization without a key', async () => {
    fake.setMode('fenced');
    const a = await createOpenAiCompatibleAnalyzer({ baseUrl: fake.baseUrl, model: 'm' }, fetcher).analyze(INPUT);
    expect(a.brandName?.value).toBe('Fake Brand');
    expect(fake.requests.at(-1)!.headers.authorization).toBeUndefined();
  });

  it.each([
    ['http-500', /HTTP 500: the model is overloaded/],
    ['bad-schema', /does not match the schema/],
    ['refusal', /refused: I cannot help/],
    ['not-json', /did not answer JSON/],
  ] as const)('turns %s into a TextEngineError', async (mode, message) => {
    fake.setMode(mode);
    const engine = createOpenAiCompatibleAnalyzer({ baseUrl: fake.baseUrl, model: 'm' }, fetcher);
    await expect(engine.analyze(INPUT)).rejects.toThrow(TextEngineError);
    await expect(engine.analyze(INPUT)).rejects.toThrow(message);
  });

  it('falls back to the local analyzer when the endpoint fails or is unreachable', async () => {
    fake.setMode('http-500');
    const warnings: unknown[] = [];
    const engine = withFallback(
      createOpenAiCompatibleAnalyzer({ baseUrl: fake.baseUrl, model: 'm' }, fetcher),
      createLocalTextAnalyzer(),
      { warn: (o) => void warnings.push(o) },
    );
    const a = await engine.analyze(INPUT);
    expect(a.engine).toBe('local');
    expect(a.mission?.value).toBe('Our mission is to drop anvils precisely.');
    expect(warnings).toHaveLength(1);
    const dead = createTextAnalyzer({
      provider: 'openai-compatible',
      baseUrl: 'http://127.0.0.1:1/v1',
      model: 'm',
      apiKey: undefined,
    });
    expect(dead.name).toBe('openai-compatible:m+local');
    expect((await dead.analyze(INPUT)).engine).toBe('local');
    expect(createTextAnalyzer({ provider: 'local' }).name).toBe('local');
  });

  it('is configured by LLM_BASE_URL, LLM_MODEL and LLM_API_KEY, checked at start', () => {
    expect(loadConfig({}).llm).toEqual({ provider: 'local' });
    expect(loadConfig({ LLM_BASE_URL: 'https://api.example/v1', LLM_MODEL: 'm', LLM_API_KEY: 'k' }).llm).toEqual({
      provider: 'openai-compatible',
      baseUrl: 'https://api.example/v1',
      model: 'm',
      apiKey: 'k',
    });
    expect(() => loadConfig({ LLM_BASE_URL: 'https://api.example/v1' })).toThrow(ConfigError);
    expect(() => loadConfig({ LLM_MODEL: 'm' })).toThrow(/LLM_BASE_URL/);
    expect(() => loadConfig({ LLM_BASE_URL: 'ftp://x', LLM_MODEL: 'm' })).toThrow(/LLM_BASE_URL/);
    expect(() => loadConfig({ LLM_API_KEY: 'k' })).toThrow(/LLM_BASE_URL: is required when LLM_API_KEY is set/);
    expect(() => loadConfig({ LLM_BASE_URL: 'https://api.example/v1' })).toThrow(/LLM_MODEL: is required/);
  });
});

describe('Brand DNA with the OpenAI-compatible engine (sqlite)', () => {
  let fake: Awaited<ReturnType<typeof startFakeModel>>;
  let sites: BrandSites;
  let t: TestApp;
  beforeAll(async () => {
    fake = await startFakeModel();
    sites = await startBrandSites();
    t = await createTestApp('sqlite', {
      env: {
        ATELIER_ALLOW_PRIVATE_FETCH: '1',
        LLM_BASE_URL: fake.baseUrl,
        LLM_MODEL: 'fake-1',
        LLM_API_KEY: 'sk-test',
      },
    });
    await t.deps.startWorkers();
  });
  afterAll(async () => {
    await t?.close();
    await sites?.close();
    await fake?.close();
  });

  it('takes identity and voice from the model and everything visual from the page', async () => {
    fake.setMode('ok');
    const key = (await t.bootstrap()).apiKey;
    const b = BRANDS[1]!;
    const brandId = await createBrand(t, key, b.name);
    const res = await t.request({
      method: 'POST',
      url: `/v1/brands/${brandId}/brand-dna/versions`,
      key,
      payload: { urls: [sites.urlOf(b.slug)] },
    });
    const id = res.json().data.versionId;
    const v = await eventually(async () => {
      const d = (await t.request({ method: 'GET', url: `/v1/brands/${brandId}/brand-dna/versions/${id}`, key })).json()
        .data;
      return d.status === 'ready' || d.status === 'failed' ? d : undefined;
    }, 'the version');
    expect(v.status).toBe('ready');
    expect(v.dna.identity.mission.value).toBe('MISSION FROM THE MODEL');
    // The model reads the brand's description too (the brand states no tone of its own).
    const both = ['brand', v.sources[0].id];
    expect(v.dna.voice.tone).toEqual([
      { tone: 'Casual', weight: 0.5, sources: both },
      { tone: 'Playful', weight: 0.5, sources: both },
    ]);
    expect(v.dna.visual.typography.heading.family).toBe(b.truth.heading);
    const sent = fake.requests.map((r) => JSON.parse(r.body.messages[1].content).blocks);
    expect(sent.some((blocks) => JSON.stringify(blocks).includes(b.mission))).toBe(true); // the about page's copy
    expect(sent).toContainEqual([{ kind: 'description', text: 'A brand made by the asset tests.' }]);
  });
});
