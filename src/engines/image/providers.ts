import { localProvider, providerRegistry } from '../shared/provider-registry.ts';
import { comfyUiSceneProvider } from './comfyui/comfyui-engine.ts';
import { falSceneProvider } from './fal/fal-engine.ts';
import { openAiImagesProvider } from './openai-images/openai-images-engine.ts';
import { replicateSceneProvider } from './replicate/replicate-engine.ts';
import type { SceneEngine } from './scene-engine.ts';
import { imageApiEnv } from './scene-provider.ts';

/**
 * The scene engines IMAGE_ENGINE chooses from: `local` (default; offline compositing, no key,
 * passed in as deps.local) and one provider per folder. A new provider: its folder, exporting a
 * SceneProvider (./scene-provider.ts), and one line here.
 */
export const IMAGE_PROVIDERS = providerRegistry(
  { variable: 'IMAGE_ENGINE', fallback: 'local', what: 'image engine', check: imageApiEnv },
  [
    localProvider<SceneEngine>('createSceneEngine'),
    openAiImagesProvider,
    falSceneProvider,
    replicateSceneProvider,
    comfyUiSceneProvider,
  ],
);
