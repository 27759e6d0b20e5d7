import type { TextProvider } from '../text-provider.ts';
import { createLocalTextAnalyzer } from './local-analyzer.ts';
import { createLocalSceneEnhancer } from './scene-enhancer.local.ts';
import { createLocalVideoEnhancer } from './video-enhancer.local.ts';

/** The built-in text engines (no settings); also every provider's fallback (../index.ts). */
export const localTextProvider: TextProvider<'local', object> = {
  kind: 'local',
  parseSettings: () => ({}),
  create: () => ({
    analyzer: createLocalTextAnalyzer(),
    sceneEnhancer: createLocalSceneEnhancer(),
    videoEnhancer: createLocalVideoEnhancer(),
  }),
};
