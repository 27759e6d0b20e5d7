import type { RegistrySettings } from '../shared/provider-registry.ts';
import { createLocalTextAnalyzer } from './local/local-analyzer.ts';
import { createLocalSceneEnhancer } from './local/scene-enhancer.local.ts';
import { createLocalVideoEnhancer } from './local/video-enhancer.local.ts';
import { TEXT_PROVIDERS } from './providers.ts';
import type { SceneEnhancer } from './scene-enhancer.ts';
import type { TextAnalyzer } from './text-engine.ts';
import type { TextEngineDeps } from './text-provider.ts';
import type { VideoEnhancer } from './video-enhancer.ts';

export * from './scene-enhancer.ts';
export * from './text-engine.ts';
export { createLocalTextAnalyzer, statedValues } from './local/local-analyzer.ts';
export { createLocalSceneEnhancer, enhanceScene, sceneWarnings } from './local/scene-enhancer.local.ts';
export { createOpenAiCompatibleAnalyzer, TextEngineError } from './openai-compatible/openai-analyzer.ts';
export { createOpenAiCompatibleSceneEnhancer } from './openai-compatible/scene-enhancer.openai.ts';
export * from './video-enhancer.ts';
export { createLocalVideoEnhancer, enhanceVideo, videoWarnings } from './local/video-enhancer.local.ts';
export { createOpenAiCompatibleVideoEnhancer } from './openai-compatible/video-enhancer.openai.ts';
export { TEXT_PROVIDERS } from './providers.ts';
export type { TextEngineDeps, TextEngines } from './text-provider.ts';

/**
 * The text engines' provider and its settings (`TEXT_PROVIDERS.parse(env)` reads them from LLM_*):
 * `local`, or an OpenAI-compatible endpoint (`baseUrl`, `model`, `apiKey`).
 */
export type TextEngineSettings = RegistrySettings<typeof TEXT_PROVIDERS>;

export interface TextEngineLogger {
  warn(obj: object, msg?: string): void;
}

/**
 * The text analyzer chosen by config (./providers.ts): the provider's analyzer, falling back to the
 * local analyzer whenever it fails (unreachable, HTTP error, an answer that does not match the
 * schema); with `local`, the local analyzer alone.
 */
export function createTextAnalyzer(
  settings: TextEngineSettings,
  o: TextEngineDeps & { logger?: TextEngineLogger } = {},
): TextAnalyzer {
  const local = createLocalTextAnalyzer();
  if (settings.provider === 'local') return local;
  return withFallback(TEXT_PROVIDERS.create(settings, o).analyzer, local, o.logger);
}

/** `primary`, and `fallback` whenever `primary` throws (unless the caller aborted). */
export function withFallback(primary: TextAnalyzer, fallback: TextAnalyzer, logger?: TextEngineLogger): TextAnalyzer {
  return {
    name: `${primary.name}+${fallback.name}`,
    async analyze(input, opts = {}) {
      try {
        return await primary.analyze(input, opts);
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        logger?.warn({ engine: primary.name, err: (err as Error).message }, 'text engine failed; using the fallback');
        return fallback.analyze(input, opts);
      }
    },
  };
}

/** An enhancer of either kind: a name and one async call taking an optional signal. */
interface Enhancer<I, R> {
  readonly name: string;
  enhance(input: I, opts?: { signal?: AbortSignal }): Promise<R>;
}

/**
 * `primary`, and `fallback` whenever `primary` throws (unless the caller aborted). A fallback is
 * never silent: it is logged, and the result carries a `TEXT_ENGINE_FALLBACK` warning saying which
 * model failed and why (the reason as the adapter worded it: no key, no request body).
 */
function withEnhancerFallback<R extends { warnings: object[] }, E extends Enhancer<never, R>>(
  primary: E,
  fallback: E,
  what: string,
  logger?: TextEngineLogger,
): E {
  return {
    name: `${primary.name}+${fallback.name}`,
    async enhance(input: never, opts: { signal?: AbortSignal } = {}) {
      try {
        return await primary.enhance(input, opts);
      } catch (err) {
        if (opts.signal?.aborted) throw err;
        const reason = fallbackReason(err);
        logger?.warn({ engine: primary.name, err: reason }, `${what} failed; using the built-in one`);
        const result = await fallback.enhance(input, opts);
        return { ...result, warnings: [...result.warnings, fallbackWarning(primary.name, reason)] };
      }
    },
  } as E;
}

/** The failure of a language model, in one bounded line without secrets. */
export function fallbackReason(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  const clean = text
    .replace(/\b(sk|key|r8|fal)[-_][A-Za-z0-9*._-]{6,}/g, '[redacted]')
    .replace(/\s+/g, ' ')
    .trim();
  return clean.length > 240 ? `${clean.slice(0, 239)}…` : clean || 'unknown error';
}

export const fallbackWarning = (model: string, reason: string) => ({
  code: 'TEXT_ENGINE_FALLBACK' as const,
  severity: 'warning' as const,
  message: `The language model (${model.replace(/^openai-compatible:/, '')}) could not write this prompt, so the built-in enhancer did: ${reason}`,
});

export const withSceneFallback = (primary: SceneEnhancer, fallback: SceneEnhancer, logger?: TextEngineLogger) =>
  withEnhancerFallback(primary, fallback, 'scene enhancer', logger);
export const withVideoFallback = (primary: VideoEnhancer, fallback: VideoEnhancer, logger?: TextEngineLogger) =>
  withEnhancerFallback(primary, fallback, 'video prompt enhancer', logger);

/**
 * The scene prompt enhancer chosen by the same settings: the provider's, falling back to the
 * local (rule-based) enhancer whenever it fails (unreachable, timeout, HTTP error, an answer that
 * does not match the schema or is refused as unfaithful); with `local`, the local enhancer alone.
 * The request is interactive, so the default time limit is 30 s (`timeoutMs` to change it).
 */
export function createSceneEnhancer(
  settings: TextEngineSettings,
  o: TextEngineDeps & { logger?: TextEngineLogger } = {},
): SceneEnhancer {
  const local = createLocalSceneEnhancer();
  if (settings.provider === 'local') return local;
  return withSceneFallback(TEXT_PROVIDERS.create(settings, o).sceneEnhancer, local, o.logger);
}

/**
 * The image-to-video prompt enhancer chosen by the same settings, with the same local fallback
 * (an answer is also refused when over the bound, unfaithful, or naming a camera move the video
 * engine would read otherwise).
 */
export function createVideoEnhancer(
  settings: TextEngineSettings,
  o: TextEngineDeps & { logger?: TextEngineLogger } = {},
): VideoEnhancer {
  const local = createLocalVideoEnhancer();
  if (settings.provider === 'local') return local;
  return withVideoFallback(TEXT_PROVIDERS.create(settings, o).videoEnhancer, local, o.logger);
}
