import { describe, expect, it } from 'vitest';
import { createVideoEngine, VIDEO_PROVIDERS, type VideoEngine } from './index.ts';

describe('VIDEO_PROVIDERS.parse', () => {
  const parse = VIDEO_PROVIDERS.parse;

  it('local needs nothing', () => {
    expect(parse({})).toEqual({ provider: 'local' });
    expect(parse({ VIDEO_ENGINE: 'local', VIDEO_EXTRA_INPUT: '[1]' })).toEqual({ provider: 'local' });
  });

  it('maps every provider with its key, model, limits and extra input', () => {
    // ComfyUI (self-hosted) takes neither a model nor extra input: comfyui/comfyui.test.ts.
    for (const engine of VIDEO_PROVIDERS.kinds.filter((e) => e !== 'local' && e !== 'comfyui')) {
      expect(
        parse({
          VIDEO_ENGINE: engine,
          VIDEO_API_KEY: 'k-123456',
          VIDEO_API_BASE_URL: 'https://proxy.example.test/v',
          VIDEO_MODEL: 'm',
          VIDEO_TIMEOUT_SECONDS: '900',
          VIDEO_MAX_RETRIES: '0',
          VIDEO_EXTRA_INPUT: '{"cfg_scale":0.4}',
        }),
      ).toEqual({
        provider: engine,
        apiKey: 'k-123456',
        baseUrl: 'https://proxy.example.test/v',
        model: 'm',
        timeoutMs: 900_000,
        maxRetries: 0,
        extraInput: { cfg_scale: 0.4 },
      });
    }
    expect(parse({ VIDEO_ENGINE: 'fal', VIDEO_API_KEY: 'k', VIDEO_END_FRAME_MODEL: 'none' })).toEqual({
      provider: 'fal',
      apiKey: 'k',
      endFrameModel: 'none',
    });
  });

  it('names the variable at fault', () => {
    expect(() => parse({ VIDEO_ENGINE: 'runway' })).toThrow(/VIDEO_API_KEY: is required when VIDEO_ENGINE=runway/);
    expect(() => parse({ VIDEO_ENGINE: 'nope' })).toThrow(/VIDEO_ENGINE: expected one of local, runway/);
    const fal = { VIDEO_ENGINE: 'fal', VIDEO_API_KEY: 'k' };
    expect(() => parse({ ...fal, VIDEO_EXTRA_INPUT: '[1]' })).toThrow(/VIDEO_EXTRA_INPUT/);
    expect(() => parse({ ...fal, VIDEO_EXTRA_INPUT: '{' })).toThrow(/VIDEO_EXTRA_INPUT/);
    const luma = { VIDEO_ENGINE: 'luma', VIDEO_API_KEY: 'k' };
    expect(() => parse({ ...luma, VIDEO_API_BASE_URL: 'ftp://x' })).toThrow(/VIDEO_API_BASE_URL/);
    expect(() => parse({ ...luma, VIDEO_TIMEOUT_SECONDS: '0' })).toThrow(/VIDEO_TIMEOUT_SECONDS/);
    expect(() => parse({ ...luma, VIDEO_MAX_RETRIES: '-1' })).toThrow(/VIDEO_MAX_RETRIES/);
    // The shared variables are checked whichever engine is chosen.
    expect(() => parse({ COMFYUI_URL: 'gpu:8188x' })).toThrow(/COMFYUI_URL/);
  });
});

describe('createVideoEngine', () => {
  it('returns the local engine passed in, or each provider by name', () => {
    const local: VideoEngine = { name: 'local', generate: () => Promise.reject(new Error('unused')) };
    expect(createVideoEngine({ provider: 'local' }, { local })).toBe(local);
    expect(createVideoEngine({ provider: 'local' }, { local: () => local })).toBe(local);
    expect(() => createVideoEngine({ provider: 'local' })).toThrow(/deps.local/);
    expect(createVideoEngine({ provider: 'runway', apiKey: 'k' }).name).toBe('runway:gen4_turbo');
    expect(createVideoEngine({ provider: 'luma', apiKey: 'k' }).name).toBe('luma:ray-2');
    expect(createVideoEngine({ provider: 'fal', apiKey: 'k' }).name).toBe(
      'fal:fal-ai/kling-video/v2.1/standard/image-to-video',
    );
    expect(createVideoEngine({ provider: 'replicate', apiKey: 'k', model: 'a/b' }).name).toBe('replicate:a/b');
  });
});
