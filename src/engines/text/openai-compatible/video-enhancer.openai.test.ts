import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetcher } from '../../../adapters/fetch/fetcher.ts';
import { chooseCameraMove } from '../../video/camera.ts';
import {
  createLocalVideoEnhancer,
  createVideoEnhancer,
  TextEngineError,
  type VideoEnhancementInput,
  withVideoFallback,
} from '../index.ts';
import { createOpenAiCompatibleVideoEnhancer } from './video-enhancer.openai.ts';

const PROMPT = 'Our vitamin C serum on a bathroom shelf, morning light, for a vertical reel';

const GOOD = {
  enhancedPrompt: `"${PROMPT}. Slow push-in toward the serum, eased in and out. The amber dropper bottle stays exactly as pictured in the start frame. Pacing (8 s): 0–2 s, open on the bottle; 2–6 s, the move continues; final 2 s (6–8 s), hold. Widescreen 16:9 framing, navy and #d4af37 accents. Finish: photorealistic, no flicker."`,
  camera: 'push-in',
};

type Mode =
  | 'ok'
  | 'fenced'
  | 'long'
  | 'http-500'
  | 'not-json'
  | 'bad-schema'
  | 'bad-camera'
  | 'refusal'
  | 'unfaithful'
  | 'avoided'
  | 'empty'
  | 'camera-mismatch'
  | 'camera-unnamed'
  | 'bare-pan'
  | 'sound'
  | 'late-beat'
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
      const said = (extra: string, camera = 'push-in') => answer({ enhancedPrompt: `${PROMPT}. ${extra}`, camera });
      switch (mode) {
        case 'http-500':
          return reply(500, { error: { message: 'the model is overloaded' } });
        case 'not-json':
          return res.writeHead(200).end('<html>');
        case 'refusal':
          return choice({ content: null, refusal: 'I cannot help with that' });
        case 'bad-schema':
          return answer({ enhancedPrompt: 42, camera: 'push-in' });
        case 'bad-camera':
          return answer({ ...GOOD, camera: 'whip-pan' });
        case 'fenced':
          return choice({ content: `\`\`\`json\n${JSON.stringify(GOOD)}\n\`\`\`` });
        case 'long':
          return said(`Slow push-in. ${'Soft light on the shelf. '.repeat(120)}`);
        case 'unfaithful':
          return answer({ enhancedPrompt: 'A red sports car on a racetrack, slow push-in.', camera: 'push-in' });
        case 'avoided':
          return said('Slow push-in toward a cheap plastic shelf.');
        case 'empty':
          return answer({ enhancedPrompt: '   ', camera: 'static' });
        case 'camera-mismatch':
          return said('Slow orbit around the serum, then a gentle push-in.');
        case 'camera-unnamed':
          return said('The camera moves gently toward the serum.');
        case 'bare-pan':
          return said('A slow pan to the left across the shelf.', 'pan-left');
        case 'sound':
          return said('Slow push-in toward the serum. Soft piano music and a glass clink.');
        case 'late-beat':
          return said('Slow push-in toward the serum; at 12 s it settles.');
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

const INPUT: VideoEnhancementInput = {
  originalPrompt: PROMPT,
  aspectRatio: '16:9',
  model: 'optimized',
  durationSeconds: 8,
  enableAudio: false,
  maxChars: 2500,
  start: {
    description: 'Vitamin C face serum in an amber glass dropper bottle',
    tags: ['serum', 'high-resolution', 'orange'],
    colors: ['orange', 'light-blue'],
    fileName: 'serum.png',
  },
  end: { description: 'The serum beside a sliced orange', tags: [], colors: [] },
  intermediate: [{ description: 'A golden drop falling', tags: ['drop'], colors: [] }],
  referenceImages: [],
  referenceVideos: [],
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
};

describe('OpenAI-compatible video enhancer', () => {
  let fake: Awaited<ReturnType<typeof startFakeModel>>;
  const fetcher = createFetcher({ allowPrivate: true });
  beforeAll(async () => {
    fake = await startFakeModel();
  });
  afterAll(async () => fake?.close());

  it('sends a strict JSON-schema chat completion with the input as words and reads a checked answer', async () => {
    fake.setMode('ok');
    const engine = createOpenAiCompatibleVideoEnhancer(
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
    const schema = req.body.response_format.json_schema.schema;
    expect(schema.required.sort()).toEqual(['camera', 'enhancedPrompt']);
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.camera.anyOf.map((x: { const: string }) => x.const)).toContain('tilt-down');
    expect(req.body.messages[0].content).toMatch(/pan-left → "pan left"/);
    const user = JSON.parse(req.body.messages[1].content);
    expect(user).toMatchObject({
      original_prompt: PROMPT,
      model: 'optimized',
      aspect_ratio: '16:9',
      orientation: 'horizontal',
      duration_seconds: 8,
      audio_enabled: false,
      max_chars: 2500,
      camera_named_by_user: null,
    });
    expect(user.start_frame).toEqual({
      description: 'Vitamin C face serum in an amber glass dropper bottle',
      file_name: 'serum.png',
      tags: ['serum'],
      dominant_colours: ['orange', 'light blue'],
    });
    expect(user.intermediate_frames_in_order[0].description).toBe('A golden drop falling');
    expect(user.end_frame.description).toBe('The serum beside a sliced orange');
    expect(user.brand.palette).toEqual(['navy (primary)', 'gold (accent)']);
    expect(user.brand.words_to_avoid).toEqual(['cheap']);
    expect(req.body.messages[1].content).not.toMatch(/#[0-9a-f]{6}/i);

    expect(r.engine).toBe('openai-compatible:fake-1');
    expect(r.camera).toBe('push-in');
    expect(r.enhancedPrompt.startsWith(PROMPT)).toBe(true); // quotes around it removed
    expect(r.enhancedPrompt).toContain('navy and gold accents');
    expect(chooseCameraMove(r.enhancedPrompt, 9).move).toBe(r.camera);
    // Input-only warnings are computed locally: "vertical reel" vs 16:9.
    expect(r.warnings.map((w) => w.code)).toEqual(['HARDSPEC_ASPECT_MISMATCH']);
  });

  it('accepts a fenced answer, sends no Authorization without a key, and tells the model the user’s move', async () => {
    fake.setMode('fenced');
    const r = await createOpenAiCompatibleVideoEnhancer({ baseUrl: fake.baseUrl, model: 'm' }, fetcher).enhance({
      ...INPUT,
      originalPrompt: `${PROMPT}, slow zoom in`,
      brand: undefined,
    });
    expect(r.camera).toBe('push-in');
    const req = fake.requests.at(-1)!;
    expect(req.headers.authorization).toBeUndefined();
    const user = JSON.parse(req.body.messages[1].content);
    expect(user.camera_named_by_user).toEqual({ move: 'push-in', words: 'slow zoom' });
    expect(user.brand).toBeNull();
  });

  it.each([
    ['http-500', INPUT, /HTTP 500: the model is overloaded/],
    ['not-json', INPUT, /did not answer JSON/],
    ['bad-schema', INPUT, /does not match the schema/],
    ['bad-camera', INPUT, /does not match the schema/],
    ['refusal', INPUT, /refused: I cannot help/],
    ['long', INPUT, /over the 2500 allowed/],
    ['unfaithful', INPUT, /leaves out most of the user's words/],
    ['avoided', INPUT, /"cheap", which the brand avoids/],
    ['empty', INPUT, /empty prompt/],
    ['camera-mismatch', INPUT, /names orbit first \("orbit"\), not its camera push-in/],
    ['camera-unnamed', INPUT, /does not name its camera move \(push-in\)/],
    ['bare-pan', INPUT, /names pan-right first \("pan"\), not its camera pan-left/],
    ['sound', INPUT, /describes sound \("piano"\) but audio is off/],
    ['late-beat', INPUT, /times a beat at 12 s, past the 8 s clip/],
    [
      'ok',
      { ...INPUT, originalPrompt: `${PROMPT}, orbit around it` },
      /changed the user's camera move \(orbit\) to push-in/,
    ],
  ] as const)('turns %s into a TextEngineError', async (mode, input, message) => {
    fake.setMode(mode);
    const engine = createOpenAiCompatibleVideoEnhancer({ baseUrl: fake.baseUrl, model: 'm' }, fetcher);
    const err = await engine.enhance(input).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TextEngineError);
    expect((err as Error).message).toMatch(message);
  });

  it('accepts sound when audio is on, and a long answer within the 5000 of video-model-8', async () => {
    fake.setMode('sound');
    const engine = createOpenAiCompatibleVideoEnhancer({ baseUrl: fake.baseUrl, model: 'm' }, fetcher);
    expect((await engine.enhance({ ...INPUT, enableAudio: true })).enhancedPrompt).toMatch(/piano/);
    fake.setMode('long');
    const r = await engine.enhance({ ...INPUT, model: 'video-model-8', maxChars: 5000, start: undefined });
    expect(r.enhancedPrompt.length).toBeGreaterThan(2500);
    expect(r.enhancedPrompt.length).toBeLessThanOrEqual(5000);
  });

  it('turns a timeout into a TextEngineError', async () => {
    fake.setMode('slow');
    const engine = createOpenAiCompatibleVideoEnhancer({ baseUrl: fake.baseUrl, model: 'm', timeoutMs: 300 }, fetcher);
    const started = Date.now();
    const err = await engine.enhance(INPUT).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TextEngineError);
    expect((err as Error).message).toMatch(/could not be reached/);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it.each(['http-500', 'not-json', 'bad-camera', 'camera-mismatch', 'long', 'sound', 'slow'] as const)(
    'falls back to the local enhancer on %s',
    async (mode) => {
      fake.setMode(mode);
      const logged: unknown[] = [];
      const engine = createVideoEnhancer(
        { provider: 'openai-compatible', baseUrl: fake.baseUrl, model: 'm', apiKey: undefined },
        { fetcher, timeoutMs: 300, logger: { warn: (o) => void logged.push(o) } },
      );
      expect(engine.name).toBe('openai-compatible:m+local');
      const r = await engine.enhance(INPUT);
      expect(r.engine).toBe('local');
      const local = await createLocalVideoEnhancer().enhance(INPUT);
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
    const dead = createVideoEnhancer({
      provider: 'openai-compatible',
      baseUrl: 'http://127.0.0.1:1/v1',
      model: 'm',
      apiKey: undefined,
    });
    expect((await dead.enhance(INPUT)).engine).toBe('local');
    expect(createVideoEnhancer({ provider: 'local' }).name).toBe('local');

    fake.setMode('slow');
    const engine = withVideoFallback(
      createOpenAiCompatibleVideoEnhancer({ baseUrl: fake.baseUrl, model: 'm' }, fetcher),
      createLocalVideoEnhancer(),
    );
    const ac = new AbortController();
    const p = engine.enhance(INPUT, { signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    await expect(p).rejects.toThrow();
  });
});
