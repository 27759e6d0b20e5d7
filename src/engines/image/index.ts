import { withProductFidelity } from './fidelity.ts';
import { IMAGE_PROVIDERS } from './providers.ts';
import type { SceneEngine } from './scene-engine.ts';
import type { SceneEngineDeps } from './scene-provider.ts';
import type { RegistrySettings } from '../shared/provider-registry.ts';

export * from './scene-engine.ts';
export { type ComfyUiSettings, type ComfyWorkflow, createComfyUiSceneEngine } from './comfyui/comfyui-engine.ts';
export { createFalSceneEngine, type FalSettings } from './fal/fal-engine.ts';
export {
  createOpenAiImagesSceneEngine,
  GPT_IMAGE_SIZES,
  type OpenAiImagesSettings,
} from './openai-images/openai-images-engine.ts';
export { ContentPolicyError, type ProviderDeps, type ProviderLimits, type Sleep } from './provider-http.ts';
export { IMAGE_PROVIDERS } from './providers.ts';
export { createReplicateSceneEngine, type ReplicateSettings } from './replicate/replicate-engine.ts';
export type { SceneEngineDeps } from './scene-provider.ts';

/** Which scene engine, and that engine's settings (`IMAGE_PROVIDERS.parse(env)` reads them). */
export type SceneEngineSettings = RegistrySettings<typeof IMAGE_PROVIDERS>;

/**
 * The scene engine chosen by `settings.provider` (./providers.ts). Provider engines reach their
 * API through a fetcher that may reach private addresses and download results on other origins
 * through a public-only one (withDefaultFetchers, ./provider-http.ts).
 *
 * Every provider engine comes wrapped in `withProductFidelity` (./fidelity.ts): each generation
 * is checked for the real product, whose box and mask are then reported, and a drifted product is
 * replaced by the real one, composited (results say so: `engine` suffixed `+fidelity`, warnings).
 * The engine keeps the provider's name (`openai-images:<model>`...), a stable identifier. `local`
 * is not wrapped (it composites the real product itself).
 */
export function createSceneEngine(settings: SceneEngineSettings, deps: SceneEngineDeps = {}): SceneEngine {
  const engine = IMAGE_PROVIDERS.create(settings, deps);
  return settings.provider === 'local' ? engine : withProductFidelity(engine, { name: engine.name });
}
