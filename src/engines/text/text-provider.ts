import type { Fetcher } from '../../adapters/fetch/fetcher.ts';
import type { Provider } from '../shared/provider-registry.ts';
import type { SceneEnhancer } from './scene-enhancer.ts';
import type { TextAnalyzer } from './text-engine.ts';
import type { VideoEnhancer } from './video-enhancer.ts';

/** The text engines one provider makes: Brand DNA text analysis and the two prompt enhancers. */
export interface TextEngines {
  analyzer: TextAnalyzer;
  sceneEnhancer: SceneEnhancer;
  videoEnhancer: VideoEnhancer;
}

export interface TextEngineDeps {
  /** Calls to the provider's endpoint. Default: a fetcher that may reach private addresses (the operator's endpoint). */
  fetcher?: Fetcher;
  /** Time limit of one enhancement (interactive; the enhancers' default 30 s). */
  timeoutMs?: number;
}

/** A text engine provider, listed in ./providers.ts. */
export type TextProvider<K extends string, S extends object> = Provider<K, S, TextEngineDeps, TextEngines>;
