import { createFetcher } from '../../../adapters/fetch/fetcher.ts';
import { ConfigError, type Env, ifSet, str, url } from '../../shared/env-settings.ts';
import type { TextProvider } from '../text-provider.ts';
import type { ChatEndpointSettings } from './chat.ts';
import { createOpenAiCompatibleAnalyzer } from './openai-analyzer.ts';
import { createOpenAiCompatibleSceneEnhancer } from './scene-enhancer.openai.ts';
import { createOpenAiCompatibleVideoEnhancer } from './video-enhancer.openai.ts';

/** LLM_* set (any of them): the OpenAI-compatible chat endpoint is chosen (and checked). */
export const llmConfigured = (env: Env): boolean =>
  Boolean(str(env, 'LLM_BASE_URL') || str(env, 'LLM_MODEL') || str(env, 'LLM_API_KEY'));

/**
 * An OpenAI-compatible chat endpoint: LLM_BASE_URL (the API root, e.g. https://api.openai.com/v1;
 * `/chat/completions` is appended), LLM_MODEL (required with LLM_BASE_URL), LLM_API_KEY (sent as a
 * Bearer token; optional for local servers). The endpoint is the operator's, so its default
 * fetcher may reach private addresses (a model served on the same network is common).
 */
export const openAiCompatibleProvider: TextProvider<
  'openai-compatible',
  Pick<ChatEndpointSettings, 'baseUrl' | 'apiKey' | 'model'>
> = {
  kind: 'openai-compatible',
  parseSettings(env) {
    const baseUrl = url(env, 'LLM_BASE_URL', ['http:', 'https:']);
    const model = str(env, 'LLM_MODEL');
    const apiKey = str(env, 'LLM_API_KEY');
    if (baseUrl && !model) throw new ConfigError('LLM_MODEL', 'is required when LLM_BASE_URL is set');
    if (!baseUrl || !model) {
      throw new ConfigError('LLM_BASE_URL', `is required when ${model ? 'LLM_MODEL' : 'LLM_API_KEY'} is set`);
    }
    return { baseUrl, model, ...ifSet('apiKey', apiKey) };
  },
  create(settings, deps) {
    const fetcher = deps.fetcher ?? createFetcher({ allowPrivate: true });
    const chat = { ...settings, ...(deps.timeoutMs ? { timeoutMs: deps.timeoutMs } : {}) };
    return {
      analyzer: createOpenAiCompatibleAnalyzer(settings, fetcher),
      sceneEnhancer: createOpenAiCompatibleSceneEnhancer(chat, fetcher),
      videoEnhancer: createOpenAiCompatibleVideoEnhancer(chat, fetcher),
    };
  },
};
