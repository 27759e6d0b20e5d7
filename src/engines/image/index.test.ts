import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OpenAiFake, startOpenAiImagesFake } from './fakes/openai-images-fake.ts';
import { SAMPLE_WORKFLOW } from './fakes/comfyui-fake.ts';
import { createSceneEngine, IMAGE_PROVIDERS, type SceneEngine } from './index.ts';
import { outputSize } from './scene-engine.ts';

let fake: OpenAiFake;
beforeAll(async () => {
  fake = await startOpenAiImagesFake('sk-factory-0123456789');
});
afterAll(() => fake.close());

const local: SceneEngine = {
  name: 'local',
  generate: () => Promise.reject(new Error('not used')),
};

describe('createSceneEngine', () => {
  it('returns the injected local engine (instance or factory), and refuses local without one', () => {
    expect(createSceneEngine({ provider: 'local' }, { local })).toBe(local);
    expect(createSceneEngine({ provider: 'local' }, { local: () => local })).toBe(local);
    expect(() => createSceneEngine({ provider: 'local' })).toThrow(/deps\.local/);
  });

  it('builds each provider engine by name', () => {
    const deps = { fetcher: fake.fetcher };
    expect(createSceneEngine({ provider: 'openai-images', model: 'gpt-image-1' }, deps).name).toBe(
      'openai-images:gpt-image-1',
    );
    expect(createSceneEngine({ provider: 'fal', model: 'fal-ai/flux/dev' }, deps).name).toBe('fal:fal-ai/flux/dev');
    expect(createSceneEngine({ provider: 'replicate' }, deps).name).toBe(
      'replicate:black-forest-labs/flux-kontext-pro',
    );
    expect(createSceneEngine({ provider: 'comfyui', workflow: SAMPLE_WORKFLOW }, deps).name).toBe('comfyui:workflow');
  });

  it('an engine from the factory generates through the fake', async () => {
    const engine = createSceneEngine(
      IMAGE_PROVIDERS.parse({
        IMAGE_ENGINE: 'openai-images',
        IMAGE_API_BASE_URL: fake.baseUrl,
        IMAGE_API_KEY: 'sk-factory-0123456789',
        IMAGE_TIMEOUT_SECONDS: '5',
      }),
      { fetcher: fake.fetcher },
    );
    const size = outputSize('1:1', 800);
    const result = await engine.generate({
      prompt: 'a lamp',
      aspectRatio: '1:1',
      ...size,
      variationIndex: 0,
      seed: 1,
      products: [],
      palette: [],
    });
    expect([result.width, result.height]).toEqual([800, 800]);
  });
});

describe('IMAGE_PROVIDERS.parse', () => {
  const parse = IMAGE_PROVIDERS.parse;

  it("maps the environment to each provider's settings", () => {
    expect(parse({})).toEqual({ provider: 'local' });
    expect(IMAGE_PROVIDERS.kinds).toEqual(['local', 'openai-images', 'fal', 'replicate', 'comfyui']);
    expect(
      parse({
        IMAGE_ENGINE: 'fal',
        IMAGE_API_KEY: 'k',
        IMAGE_MODEL: 'fal-ai/flux/dev',
        IMAGE_SIZE_INPUT: 'image_size',
        IMAGE_INPUT_FIELD: 'none',
        IMAGE_EXTRA_INPUT: '{"guidance_scale": 3}',
        IMAGE_TIMEOUT_SECONDS: '90',
        IMAGE_MAX_RETRIES: '1',
      }),
    ).toEqual({
      provider: 'fal',
      apiKey: 'k',
      model: 'fal-ai/flux/dev',
      sizeInput: 'image_size',
      imageInput: 'none',
      extraInput: { guidance_scale: 3 },
      timeoutMs: 90_000,
      maxRetries: 1,
    });
    expect(parse({ IMAGE_ENGINE: 'replicate', IMAGE_API_KEY: 'k', IMAGE_INPUT_FIELD: 'none' })).toEqual({
      provider: 'replicate',
      apiKey: 'k',
      imageInput: null,
    });
    expect(
      parse({
        IMAGE_ENGINE: 'comfyui',
        COMFYUI_URL: 'http://gpu:8188',
        COMFYUI_WORKFLOW_FILE: '/w.json',
        COMFYUI_OUTPUT_NODE: '9',
      }),
    ).toEqual({ provider: 'comfyui', baseUrl: 'http://gpu:8188', workflow: '/w.json', outputNode: '9' });
    expect(parse({ IMAGE_ENGINE: 'openai-images', IMAGE_SIZES: '1024x1024, ', IMAGE_QUALITY: 'high' })).toEqual({
      provider: 'openai-images',
      sizes: ['1024x1024'],
      quality: 'high',
    });
  });

  it('names the variable at fault', () => {
    expect(() => parse({ IMAGE_ENGINE: 'fal' })).toThrow(/IMAGE_API_KEY: is required when IMAGE_ENGINE=fal/);
    expect(() => parse({ IMAGE_ENGINE: 'replicate' })).toThrow(/IMAGE_API_KEY/);
    // COMFYUI_WORKFLOW_FILE defaults to the shipped product-in-scene template.
    expect(parse({ IMAGE_ENGINE: 'comfyui' })).toMatchObject({
      provider: 'comfyui',
      workflow: expect.stringMatching(/config\/comfyui\/product-in-scene\.json$/),
    });
    expect(() => parse({ IMAGE_ENGINE: 'fal', IMAGE_API_KEY: 'k', IMAGE_SIZE_INPUT: 'width_height' })).toThrow(
      /IMAGE_SIZE_INPUT: must be one of/,
    );
    expect(() => parse({ IMAGE_ENGINE: 'fal', IMAGE_API_KEY: 'k', IMAGE_EXTRA_INPUT: '[1]' })).toThrow(
      /IMAGE_EXTRA_INPUT/,
    );
    // The shared variables are checked whichever engine is chosen.
    expect(() => parse({ IMAGE_EXTRA_INPUT: '{' })).toThrow(/IMAGE_EXTRA_INPUT: must be a JSON object/);
    expect(() => parse({ IMAGE_ENGINE: 'dalle' })).toThrow(/IMAGE_ENGINE: expected one of local, openai-images/);
  });
});
