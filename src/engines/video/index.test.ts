import { describe, expect, it } from 'vitest';
import { createVideoEngine, toVideoEngineSettings, VIDEO_ENGINES, type VideoEngine } from './index.ts';

describe('toVideoEngineSettings', () => {
  it('local needs nothing', () => {
    expect(toVideoEngineSettings({ engine: 'local' })).toEqual({ provider: 'local' });
  });

  it('maps every provider with its key, model, limits and extra input', () => {
    // ComfyUI (self-hosted) takes neither a model nor extra input: providers/comfyui.test.ts.
    for (const engine of VIDEO_ENGINES.filter((e) => e !== 'local' && e !== 'comfyui')) {
      expect(
        toVideoEngineSettings({
          engine,
          apiKey: 'k-123456',
          baseUrl: 'https://proxy.example.test/v',
          model: 'm',
          timeoutSeconds: 900,
          maxRetries: 0,
          extraInput: '{"cfg_scale":0.4}',
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
    expect(toVideoEngineSettings({ engine: 'runway', apiKey: 'k', extraInput: { a: 1 } })).toEqual({
      provider: 'runway',
      apiKey: 'k',
      extraInput: { a: 1 },
    });
  });

  it('names the variable at fault', () => {
    expect(() => toVideoEngineSettings({ engine: 'runway' })).toThrow(
      /VIDEO_API_KEY is required when VIDEO_ENGINE=runway/,
    );
    expect(() => toVideoEngineSettings({ engine: 'nope' as 'local' })).toThrow(
      /VIDEO_ENGINE must be one of local, runway/,
    );
    expect(() => toVideoEngineSettings({ engine: 'fal', apiKey: 'k', extraInput: '[1]' })).toThrow(/VIDEO_EXTRA_INPUT/);
    expect(() => toVideoEngineSettings({ engine: 'fal', apiKey: 'k', extraInput: '{' })).toThrow(/VIDEO_EXTRA_INPUT/);
    expect(() => toVideoEngineSettings({ engine: 'luma', apiKey: 'k', baseUrl: 'ftp://x' })).toThrow(
      /VIDEO_API_BASE_URL/,
    );
    expect(() => toVideoEngineSettings({ engine: 'luma', apiKey: 'k', timeoutSeconds: 0 })).toThrow(
      /VIDEO_TIMEOUT_SECONDS/,
    );
    expect(() => toVideoEngineSettings({ engine: 'luma', apiKey: 'k', maxRetries: -1 })).toThrow(/VIDEO_MAX_RETRIES/);
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
