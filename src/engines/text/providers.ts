import { providerRegistry } from '../shared/provider-registry.ts';
import { localTextProvider } from './local/local-provider.ts';
import { llmConfigured, openAiCompatibleProvider } from './openai-compatible/openai-provider.ts';

/**
 * The text engines (Brand DNA text analysis, scene and video prompt enhancement): `local`
 * (built in; also the fallback of every other) unless LLM_* name an OpenAI-compatible endpoint.
 * A new provider: its folder, exporting a TextProvider (./text-provider.ts), and one line here.
 */
export const TEXT_PROVIDERS = providerRegistry(
  {
    variable: 'LLM_BASE_URL',
    fallback: 'local',
    what: 'text engine',
    choose: (env) => (llmConfigured(env) ? 'openai-compatible' : 'local'),
  },
  [localTextProvider, openAiCompatibleProvider],
);
