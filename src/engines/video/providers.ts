import { localProvider, providerRegistry } from '../shared/provider-registry.ts';
import { comfyUiVideoProvider } from './comfyui/comfyui.ts';
import { falVideoProvider } from './fal/fal.ts';
import { lumaVideoProvider } from './luma/luma.ts';
import { replicateVideoProvider } from './replicate/replicate.ts';
import { runwayVideoProvider } from './runway/runway.ts';
import type { VideoEngine } from './video-engine.ts';
import { videoApiEnv } from './video-provider.ts';

/**
 * The video engines VIDEO_ENGINE chooses from: `local` (default; ffmpeg on the CPU, offline, no
 * key, passed in as deps.local) and one provider per folder. A new provider: its folder,
 * exporting a VideoProvider (./video-provider.ts), and one line here.
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
