import { createFetcher, type Fetcher } from '../../adapters/fetch/fetcher.ts';
import { createLocalTextAnalyzer } from './local/local-analyzer.ts';
import { createLocalSceneEnhancer } from './local/scene-enhancer.local.ts';
import { createOpenAiCompatibleAnalyzer } from './openai-compatible/openai-analyzer.ts';
import { createOpenAiCompatibleSceneEnhancer } from './openai-compatible/scene-enhancer.openai.ts';
import type { SceneEnhancer } from './scene-enhancer.ts';
import type { TextAnalyzer } from './text-engine.ts';
import { createLocalVideoEnhancer } from './local/video-enhancer.local.ts';
import { createOpenAiCompatibleVideoEnhancer } from './openai-compatible/video-enhancer.openai.ts';
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

export interface TextEngineSettings {
  /** LLM_BASE_URL: an OpenAI-compatible API root (…/v1); unset → the local analyzer only. */
  baseUrl: string | undefined;
  apiKey: string | undefined;
  model: string | undefined;
}

export interface TextEngineLogger {
  warn(obj: object, msg?: string): void;
}

/**
 * The text analyzer chosen by config: the OpenAI-compatible adapter when LLM_BASE_URL and
 * LLM_MODEL are set, falling back to the local analyzer whenever the endpoint fails (unreachable,
 * HTTP error, an answer that does not match the schema); otherwise the local analyzer alone.
 *
 * The endpoint is configured by the operator, not sent by clients, so its fetcher may reach
 * private addresses (a model served on the same network is common); every other bound of the
 * one fetcher (time, size, redirects, schemes) still applies.
 */
export function createTextAnalyzer(
  settings: TextEngineSettings,
  o: { fetcher?: Fetcher; logger?: TextEngineLogger } = {},
): TextAnalyzer {
  const local = createLocalTextAnalyzer();
  if (!settings.baseUrl || !settings.model) return local;
  const remote = createOpenAiCompatibleAnalyzer(
    { baseUrl: settings.baseUrl, model: settings.model, ...(settings.apiKey ? { apiKey: settings.apiKey } : {}) },
    o.fetcher ?? createFetcher({ allowPrivate: true }),
  );
  return withFallback(remote, local, o.logger);
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

/** The chat endpoint settings of an OpenAI-compatible enhancer (interactive: 30 s unless told). */
const chatSettings = (settings: TextEngineSettings & { baseUrl: string; model: string }, timeoutMs?: number) => ({
  baseUrl: settings.baseUrl,
  model: settings.model,
  ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
  ...(timeoutMs ? { timeoutMs } : {}),
});

export const withSceneFallback = (primary: SceneEnhancer, fallback: SceneEnhancer, logger?: TextEngineLogger) =>
  withEnhancerFallback(primary, fallback, 'scene enhancer', logger);
export const withVideoFallback = (primary: VideoEnhancer, fallback: VideoEnhancer, logger?: TextEngineLogger) =>
  withEnhancerFallback(primary, fallback, 'video prompt enhancer', logger);

/**
 * The scene prompt enhancer chosen by the same LLM_* settings: the OpenAI-compatible enhancer
 * when LLM_BASE_URL and LLM_MODEL are set, falling back to the local (rule-based) enhancer
 * whenever the endpoint fails (unreachable, timeout, HTTP error, an answer that does not match
 * the schema or is refused as unfaithful); otherwise the local enhancer alone. The request is
 * interactive, so the default time limit is 30 s (`timeoutMs` to change it).
 */
export function createSceneEnhancer(
  settings: TextEngineSettings,
  o: { fetcher?: Fetcher; logger?: TextEngineLogger; timeoutMs?: number } = {},
): SceneEnhancer {
  const local = createLocalSceneEnhancer();
  if (!settings.baseUrl || !settings.model) return local;
  const remote = createOpenAiCompatibleSceneEnhancer(
    chatSettings({ ...settings, baseUrl: settings.baseUrl, model: settings.model }, o.timeoutMs),
    o.fetcher ?? createFetcher({ allowPrivate: true }),
  );
  return withSceneFallback(remote, local, o.logger);
}

/**
 * The image-to-video prompt enhancer chosen by the same LLM_* settings, with the same local
 * fallback (an answer is also refused when over the bound, unfaithful, or naming a camera move
 * the video engine would read otherwise).
 */
export function createVideoEnhancer(
  settings: TextEngineSettings,
  o: { fetcher?: Fetcher; logger?: TextEngineLogger; timeoutMs?: number } = {},
): VideoEnhancer {
  const local = createLocalVideoEnhancer();
  if (!settings.baseUrl || !settings.model) return local;
  const remote = createOpenAiCompatibleVideoEnhancer(
    chatSettings({ ...settings, baseUrl: settings.baseUrl, model: settings.model }, o.timeoutMs),
    o.fetcher ?? createFetcher({ allowPrivate: true }),
  );
  return withVideoFallback(remote, local, o.logger);
}
