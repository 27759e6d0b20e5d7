import { localProvider, providerRegistry } from '../shared/provider-registry.ts';
import { comfyUiVideoProvider } from './providers/comfyui.ts';
import { falVideoProvider } from './providers/fal.ts';
import { lumaVideoProvider } from './providers/luma.ts';
import { replicateVideoProvider } from './providers/replicate.ts';
import { runwayVideoProvider } from './providers/runway.ts';
import type { VideoEngine } from './video-engine.ts';
import { videoApiEnv } from './video-provider.ts';

/**
 * The video engines VIDEO_ENGINE chooses from: `local` (default; ffmpeg on the CPU, offline, no
 * key, passed in as deps.local) and one provider per file of ./providers. A new provider: its
 * file, exporting a VideoProvider (./video-provider.ts), and one line here.
 */
export const VIDEO_PROVIDERS = providerRegistry(
  { variable: 'VIDEO_ENGINE', fallback: 'local', what: 'video engine', check: videoApiEnv },
  [
    localProvider<VideoEngine>('createVideoEngine'),
    runwayVideoProvider,
    lumaVideoProvider,
    falVideoProvider,
    replicateVideoProvider,
    comfyUiVideoProvider,
  ],
);
