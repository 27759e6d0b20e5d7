import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetcher } from '../../../adapters/fetch/fetcher.ts';
import {
  createLocalSceneEnhancer,
  createSceneEnhancer,
  type SceneEnhancementInput,
  TextEngineError,
  withSceneFallback,
} from '../index.ts';
import { resetChatModelMemory } from './chat.ts';
import { createOpenAiCompatibleSceneEnhancer, keptShare, contentWords } from './scene-enhancer.openai.ts';

const PROMPT = 'Our vitamin C serum on a bathroom shelf, morning light, vertical story';

const GOOD = {
  optimized_prompt: `"${PROMPT}. The vitamin C face serum in its amber glass dropper bottle stands on a pale stone shelf in a bright bathroom, soft morning light from a window at the left, navy and #d4af37 accents, 85mm lens, shallow depth of field. High-end editorial product photography."`,
  theme: '  Golden Morning Ritual ',
};

/** What the fake model answers; `mode` picks it. */
type Mode =
  | 'ok'
  | 'fenced'
  | 'long'
  | 'http-500'
  | 'not-json'
  | 'bad-schema'
  | 'refusal'
  | 'unfaithful'
  | 'avoided'
  | 'empty'
  | 'slow';

interface Recorded {
  path: string;
  headers: http.IncomingHttpHeaders;
  // biome-ignore lint/suspicious/noExplicitAny: request JSON is read field by field
  body: Record<string, any>;
}

/** A server on 127.0.0.1 speaking the OpenAI chat-completions protocol. */
async function startFakeModel() {
  const requests: Recorded[] = [];
  let mode: Mode = 'ok';
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
      const answer = (a: unknown) => choice({ content: JSON.stringify(a) });
      const body = requests.at(-1)?.body ?? {};
      // Reasoning models (gpt-5, the o-series) take only the default sampling: any other
      // `temperature` is a 400 `unsupported_value` naming the parameter (openai-node types the
      // error body as { message, type, param, code }: src/core/error.ts, APIError).
      if (/^(o\d|gpt-5)/.test(String(body.model)) && body.temperature !== undefined && body.temperature !== 1) {
        return reply(400, {
          error: {
            message: `Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the default (1) value is supported.`,
            type: 'invalid_request_error',
            param: 'temperature',
            code: 'unsupported_value',
          },
        });
      }
      switch (mode) {
        case 'http-500':
          return reply(500, { error: { message: 'the model is overloaded' } });
        case 'not-json':
          return res.writeHead(200).end('<html>');
        case 'refusal':
          return choice({ content: null, refusal: 'I cannot help with that' });
        case 'bad-schema':
          return answer({ optimized_prompt: 42, theme: 'x' });
        case 'fenced':
          return choice({ content: `\`\`\`json\n${JSON.stringify(GOOD)}\n\`\`\`` });
        case 'long':
          return answer({
            ...GOOD,
            optimized_prompt: `${PROMPT}. ${'A sentence about soft light on the shelf. '.repeat(80)}`,
            theme: 'T '.repeat(400),
          });
        case 'unfaithful':
          return answer({ optimized_prompt: 'A red sports car on a racetrack at noon.', theme: 'Speed' });
        case 'avoided':
          return answer({ ...GOOD, optimized_prompt: `${PROMPT}. A cheap plastic shelf.` });
        case 'empty':
          return answer({ optimized_prompt: '   ', theme: 'x' });
        case 'slow':
          setTimeout(() => answer(GOOD), 3000).unref();
          return;
        default:
          return answer(GOOD);
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return {
    baseUrl,
    requests,
    setMode: (m: Mode) => {
      mode = m;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const INPUT: SceneEnhancementInput = {
  originalPrompt: PROMPT,
  aspectRatio: '16:9',
  products: [
    {
      description: 'Vitamin C face serum in an amber glass dropper bottle',
      tags: ['serum', 'high-resolution', 'orange'],
      colors: ['orange', 'light-blue'],
      fileName: 'serum.png',
    },
  ],
  environment: { description: 'A bright bathroom with a stone shelf', tags: ['bathroom'], colors: ['white'] },
  brand: {
    name: 'Maison',
    industry: 'Beauty',
    tone: ['Luxurious'],
    palette: [
      { hex: '#1b2a4a', role: 'primary' },
      { hex: '#d4af37', name: 'Pantone 871 C', role: 'accent' },
    ],
    imageryStyle: ['warm'],
    wordsToAvoid: ['cheap'],
  },
  partner: 'partner-1',
};

describe('OpenAI-compatible scene enhancer', () => {
  let fake: Awaited<ReturnType<typeof startFakeModel>>;
  const fetcher = createFetcher({ allowPrivate: true });
  beforeAll(async () => {
    fake = await startFakeModel();
  });
  afterAll(async () => fake?.close());

  it('sends a strict JSON-schema chat completion with the input as words and reads a bounded answer', async () => {
    fake.setMode('ok');
    const engine = createOpenAiCompatibleSceneEnhancer(
      { baseUrl: `${fake.baseUrl}/`, apiKey: 'sk-test', model: 'fake-1' },
      fetcher,
    );
    expect(engine.name).toBe('openai-compatible:fake-1');
    const r = await engine.enhance(INPUT);
    const req = fake.requests.at(-1)!;
    expect(req.path).toBe('/v1/chat/completions');
    expect(req.headers.authorization).toBe('Bearer sk-test');
    expect(req.body.model).toBe('fake-1');
    expect(req.body.temperature).toBeLessThanOrEqual(0.3);
    expect(req.body.response_format.type).toBe('json_schema');
    expect(req.body.response_format.json_schema.strict).toBe(true);
    expect(req.body.response_format.json_schema.schema.required.sort()).toEqual(['optimized_prompt', 'theme']);
    expect(req.body.response_format.json_schema.schema.additionalProperties).toBe(false);
    expect(req.body.messages[0].role).toBe('system');
    const user = JSON.parse(req.body.messages[1].content);
    expect(user.original_prompt).toBe(PROMPT);
    expect(user.aspect_ratio).toBe('16:9');
    expect(user.orientation).toBe('horizontal');
    expect(user.placement).toBe('marketplace listing');
    expect(user.products[0]).toEqual({
      description: 'Vitamin C face serum in an amber glass dropper bottle',
      file_name: 'serum.png',
      tags: ['serum'],
      dominant_colours: ['orange', 'light blue'],
    });
    expect(user.brand.palette).toEqual(['navy (primary)', 'gold (accent)']);
    expect(user.brand.words_to_avoid).toEqual(['cheap']);
    expect(req.body.messages[1].content).not.toMatch(/#[0-9a-f]{6}/i);

    expect(r.engine).toBe('openai-compatible:fake-1');
    expect(r.optimizedPrompt.startsWith(PROMPT)).toBe(true); // quotes around it removed
    expect(r.optimizedPrompt).toContain('navy and gold accents'); // hex the model wrote turned into a word
    expect(r.optimizedPrompt).not.toMatch(/#[0-9a-f]{3,6}/i);
    expect(r.theme).toBe('Golden Morning Ritual');
    // Warnings that depend on the input alone are computed locally: "vertical story" vs 16:9.
    expect(r.warnings.map((w) => w.code)).toEqual(['HARDSPEC_ASPECT_MISMATCH']);
  });

  it('accepts a fenced answer, sends no Authorization without a key, and says "general" for the default partner', async () => {
    fake.setMode('fenced');
    const r = await createOpenAiCompatibleSceneEnhancer({ baseUrl: fake.baseUrl, model: 'm' }, fetcher).enhance({
      ...INPUT,
      partner: 'default',
      brand: undefined,
    });
    expect(r.theme).toBe('Golden Morning Ritual');
    const req = fake.requests.at(-1)!;
    expect(req.headers.authorization).toBeUndefined();
    const user = JSON.parse(req.body.messages[1].content);
    expect(user.placement).toBe('general');
    expect(user.brand).toBeNull();
  });

  it('cuts an over-long answer at a sentence and says PROMPT_TRUNCATED', async () => {
    fake.setMode('long');
    const r = await createOpenAiCompatibleSceneEnhancer({ baseUrl: fake.baseUrl, model: 'm' }, fetcher).enhance(INPUT);
    expect(r.optimizedPrompt.length).toBeLessThanOrEqual(2500);
    expect(r.optimizedPrompt.endsWith('shelf.')).toBe(true);
    expect(r.theme.length).toBeLessThanOrEqual(500);
    expect(r.warnings.map((w) => w.code)).toContain('PROMPT_TRUNCATED');
  });

  it.each([
    ['http-500', /HTTP 500: the model is overloaded/],
    ['not-json', /did not answer JSON/],
    ['bad-schema', /does not match the schema/],
    ['refusal', /refused: I cannot help/],
    ['unfaithful', /leaves out most of the user's words/],
    ['avoided', /"cheap", which the brand avoids/],
    ['empty', /empty prompt/],
  ] as const)('turns %s into a TextEngineError', async (mode, message) => {
    fake.setMode(mode);
    const engine = createOpenAiCompatibleSceneEnhancer({ baseUrl: fake.baseUrl, model: 'm' }, fetcher);
    const err = await engine.enhance(INPUT).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TextEngineError);
    expect((err as Error).message).toMatch(message);
  });

  it('turns a timeout into a TextEngineError', async () => {
    fake.setMode('slow');
    const engine = createOpenAiCompatibleSceneEnhancer({ baseUrl: fake.baseUrl, model: 'm', timeoutMs: 300 }, fetcher);
    const started = Date.now();
    const err = await engine.enhance(INPUT).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TextEngineError);
    expect((err as Error).message).toMatch(/could not be reached/);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('asks a reasoning model again without temperature when it refuses one, and remembers the model', async () => {
    fake.setMode('ok');
    resetChatModelMemory();
    const logged: unknown[] = [];
    const engine = createSceneEnhancer(
      { provider: 'openai-compatible', baseUrl: fake.baseUrl, model: 'gpt-5-mini', apiKey: undefined },
      { fetcher, logger: { warn: (o) => void logged.push(o) } },
    );
    const before = fake.requests.length;
    const r = await engine.enhance(INPUT);
    expect(r.engine).toBe('openai-compatible:gpt-5-mini');
    expect(r.warnings.map((w) => w.code)).not.toContain('TEXT_ENGINE_FALLBACK');
    const sent = fake.requests.slice(before).map((q) => q.body.temperature);
    expect(sent).toEqual([0.2, undefined]);
    // The next call goes without it at once.
    await engine.enhance(INPUT);
    expect(fake.requests.slice(before + 2).map((q) => 'temperature' in q.body)).toEqual([false]);
    expect(logged).toEqual([]);
  });

  it('says why when a model refuses the request: a TEXT_ENGINE_FALLBACK warning and a log line', async () => {
    fake.setMode('http-500');
    const logged: { err?: string }[] = [];
    const engine = createSceneEnhancer(
      { provider: 'openai-compatible', baseUrl: fake.baseUrl, model: 'm', apiKey: 'sk-secret-key-123456' },
      { fetcher, logger: { warn: (o) => void logged.push(o) } },
    );
    const r = await engine.enhance(INPUT);
    const w = r.warnings.find((x) => x.code === 'TEXT_ENGINE_FALLBACK');
    expect(w?.message).toContain('HTTP 500: the model is overloaded');
    expect(w?.message).not.toContain('sk-secret');
    expect(logged[0]?.err).toContain('HTTP 500');
  });

  it.each(['http-500', 'not-json', 'bad-schema', 'unfaithful', 'slow'] as const)(
    'falls back to the local enhancer on %s',
    async (mode) => {
      fake.setMode(mode);
      const logged: unknown[] = [];
      const engine = createSceneEnhancer(
        { provider: 'openai-compatible', baseUrl: fake.baseUrl, model: 'm', apiKey: undefined },
        { fetcher, timeoutMs: 300, logger: { warn: (o) => void logged.push(o) } },
      );
      expect(engine.name).toBe('openai-compatible:m+local');
      const r = await engine.enhance(INPUT);
      expect(r.engine).toBe('local');
      const local = await createLocalSceneEnhancer().enhance(INPUT);
      // The local result, plus one warning saying the model failed and why (never silent).
      const { warnings, ...rest } = r;
      const { warnings: localWarnings, ...localRest } = local;
      expect(rest).toEqual(localRest);
      expect(warnings.slice(0, -1)).toEqual(localWarnings);
      expect(warnings.at(-1)).toMatchObject({ code: 'TEXT_ENGINE_FALLBACK', severity: 'warning' });
      expect(warnings.at(-1)?.message).toMatch(/language model \(m\) could not write this prompt/);
      expect(logged).toHaveLength(1);
    },
  );

  it('falls back when unreachable, is local alone without settings, and does not fall back after an abort', async () => {
    const dead = createSceneEnhancer({
      provider: 'openai-compatible',
      baseUrl: 'http://127.0.0.1:1/v1',
      model: 'm',
      apiKey: undefined,
    });
    expect((await dead.enhance(INPUT)).engine).toBe('local');
    expect(createSceneEnhancer({ provider: 'local' }).name).toBe('local');

    fake.setMode('slow');
    const engine = withSceneFallback(
      createOpenAiCompatibleSceneEnhancer({ baseUrl: fake.baseUrl, model: 'm' }, fetcher),
      createLocalSceneEnhancer(),
    );
    const ac = new AbortController();
    const p = engine.enhance(INPUT, { signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    await expect(p).rejects.toThrow();
  });

  it('measures faithfulness by the prompt’s content words', () => {
    const words = contentWords('Our vitamin C serum on a bathroom shelf, morning light');
    expect(words).toEqual(['vitamin', 'serum', 'bathroom', 'shelf', 'morning', 'light']);
    expect(keptShare(words, 'Vitamin serums on bathroom shelves in the morning light')).toBe(1);
    expect(keptShare(words, 'A car')).toBe(0);
  });
});
