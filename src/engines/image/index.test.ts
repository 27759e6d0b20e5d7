import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OpenAiFake, startOpenAiImagesFake } from './fakes/openai-images-fake.ts';
import { SAMPLE_WORKFLOW } from './fakes/comfyui-fake.ts';
import { createSceneEngine, type SceneEngine, toSceneEngineSettings } from './index.ts';
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
      toSceneEngineSettings({
        engine: 'openai-images',
        baseUrl: fake.baseUrl,
        apiKey: 'sk-factory-0123456789',
        timeoutSeconds: 5,
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

describe('toSceneEngineSettings', () => {
  it('maps the flat environment configuration', () => {
    expect(toSceneEngineSettings({ engine: 'local' })).toEqual({ provider: 'local' });
    expect(
      toSceneEngineSettings({
        engine: 'fal',
        apiKey: 'k',
        model: 'fal-ai/flux/dev',
        sizeInput: 'image_size',
        inputField: 'none',
        extraInput: '{"guidance_scale": 3}',
        timeoutSeconds: 90,
        maxRetries: 1,
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
    expect(toSceneEngineSettings({ engine: 'replicate', apiKey: 'k', inputField: 'none' })).toEqual({
      provider: 'replicate',
      apiKey: 'k',
      imageInput: null,
    });
    expect(
      toSceneEngineSettings({
        engine: 'comfyui',
        comfyUrl: 'http://gpu:8188',
        comfyWorkflowFile: '/w.json',
        comfyOutputNode: '9',
      }),
    ).toEqual({ provider: 'comfyui', baseUrl: 'http://gpu:8188', workflow: '/w.json', outputNode: '9' });
    expect(toSceneEngineSettings({ engine: 'openai-images', sizes: ['1024x1024'], quality: 'high' })).toEqual({
      provider: 'openai-images',
      sizes: ['1024x1024'],
      quality: 'high',
    });
  });

  it('names the variable at fault', () => {
    expect(() => toSceneEngineSettings({ engine: 'fal' })).toThrow(/IMAGE_API_KEY is required when IMAGE_ENGINE=fal/);
    expect(() => toSceneEngineSettings({ engine: 'replicate' })).toThrow(/IMAGE_API_KEY/);
    // COMFYUI_WORKFLOW_FILE defaults to the shipped product-in-scene template.
    expect(toSceneEngineSettings({ engine: 'comfyui' })).toMatchObject({
      provider: 'comfyui',
      workflow: expect.stringMatching(/config\/comfyui\/product-in-scene\.json$/),
    });
    expect(() => toSceneEngineSettings({ engine: 'fal', apiKey: 'k', sizeInput: 'width_height' })).toThrow(
      /IMAGE_SIZE_INPUT must be one of/,
    );
    expect(() => toSceneEngineSettings({ engine: 'fal', apiKey: 'k', extraInput: '[1]' })).toThrow(/IMAGE_EXTRA_INPUT/);
    expect(() => toSceneEngineSettings({ engine: 'dalle' as 'local' })).toThrow(/IMAGE_ENGINE must be one of/);
  });
});
