import { nearestSize, parseRatios, type ProviderDeps, trimBase } from '../../image/provider-http.ts';
import type { VideoEngine, VideoRequest, VideoResult } from '../video-engine.ts';
import {
  authorization,
  checkRequest,
  finishVideo,
  frameDataUri,
  nearestDuration,
  pollIntervals,
  pollJob,
  providerEngine,
  str,
  type VideoProviderLimits,
  validId,
  videoProviderSessions,
} from './provider-video.ts';

/**
 * Videos by Runway's API (image to video):
 *
 * 1. `POST {baseUrl}/v1/image_to_video` with `Authorization: Bearer <apiKey>` and
 *    `X-Runway-Version: 2024-11-06`, body `{ model, promptImage, promptText, ratio, duration, seed }`:
 *    `promptImage` is the start frame as a PNG data URI, or `[{ uri, position: 'first' },
 *    { uri, position: 'last' }]` with an end frame; `ratio` the model's `W:H` nearest the request,
 *    `duration` the allowed one nearest it; answers `{ id }`;
 * 2. `GET {baseUrl}/v1/tasks/{id}` is polled (Runway asks for ≥ 5 s between polls) while
 *    `PENDING` / `THROTTLED` / `RUNNING`, until `SUCCEEDED` (`output`: URLs, the first is used),
 *    `FAILED` (`failure`, `failureCode`) or `CANCELLED`;
 * 3. the output (Runway's CDN, another origin: no key) is downloaded and conformed to the request.
 *
 * On timeout or abort the task is deleted (`DELETE /v1/tasks/{id}`, best effort). Needs a start
 * frame (image to video): text-only and references-only requests are refused (non-retryable).
 */
export interface RunwaySettings extends VideoProviderLimits {
  /** Default `https://api.dev.runwayml.com`. */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string;
  /** Default `gen4_turbo`. */
  model?: string;
  /** `X-Runway-Version`. Default `2024-11-06`. */
  apiVersion?: string;
  /** The model's output ratios (`W:H` in px); the nearest is sent. Default: gen4_turbo's. */
  ratios?: string[];
  /** The model's durations (s); the nearest is sent. Default 5, 10. */
  durations?: number[];
  /** Extra body members sent as-is (e.g. `contentModeration`). */
  extraInput?: Record<string, unknown>;
  /** First wait between polls. Default 5 s. */
  pollIntervalMs?: number;
  /** Longest wait between polls. Default 15 s. */
  maxPollIntervalMs?: number;
}

export const RUNWAY_RATIOS = ['1280:720', '720:1280', '1104:832', '832:1104', '960:960', '1584:672'];

interface Task {
  id?: unknown;
  status?: unknown;
  output?: unknown;
  failure?: unknown;
  failureCode?: unknown;
}

const LABEL = 'Runway';
const PENDING = new Set(['PENDING', 'THROTTLED', 'RUNNING']);

export function createRunwayVideoEngine(settings: RunwaySettings, deps: ProviderDeps): VideoEngine {
  const baseUrl = trimBase(settings.baseUrl ?? 'https://api.dev.runwayml.com');
  const model = settings.model ?? 'gen4_turbo';
  const name = `runway:${model}`;
  const ratios = parseRatios(settings.ratios ?? RUNWAY_RATIOS, 'runway');
  const durations = settings.durations ?? [5, 10];
  const session = videoProviderSessions(settings, deps, {
    label: LABEL,
    baseUrl,
    headers: { ...authorization('Bearer', settings.apiKey), 'x-runway-version': settings.apiVersion ?? '2024-11-06' },
  });

  return providerEngine(name, async (req: VideoRequest): Promise<VideoResult> => {
    const warnings = checkRequest(req, { label: LABEL, textOnly: false }, settings.conform);
    const s = session(req);
    const first = await frameDataUri(req.startFrame as Buffer, 'start frame');
    const promptImage = req.endFrame
      ? [
          { uri: first, position: 'first' },
          { uri: await frameDataUri(req.endFrame, 'end frame'), position: 'last' },
        ]
      : first;
    const body = {
      model,
      promptImage,
      ...(req.prompt.trim() ? { promptText: req.prompt.slice(0, 1000) } : {}),
      ratio: nearestSize(ratios, req.width, req.height).text,
      duration: nearestDuration(durations, req.durationSeconds),
      seed: req.seed >>> 0,
      ...settings.extraInput,
    };
    const created = (await s.json<Task>(`${baseUrl}/v1/image_to_video`, { json: body, what: 'creating the task' }))
      .json;
    const id = validId(s, LABEL, created?.id, 'the task');
    const taskUrl = `${baseUrl}/v1/tasks/${id}`;

    const url = await pollJob(s, req, {
      url: taskUrl,
      what: 'checking the task',
      status: (t: Task) => t.status,
      noStatus: `${LABEL} answered a task without a status`,
      pending: PENDING,
      settle: (status, t) => {
        if (status === 'SUCCEEDED') {
          const out = Array.isArray(t.output) ? t.output.find((o) => typeof o === 'string') : str(t.output);
          if (!out) throw s.fail(`${LABEL} finished the task without an output URL`, true);
          return out as string;
        }
        if (status === 'CANCELLED') throw s.fail(`The ${LABEL} task was cancelled`);
        throw s.failed(
          { message: str(t.failure), code: str(t.failureCode) },
          `${LABEL} reported the task ${status === 'FAILED' ? 'failed' : `as "${status}"`}${str(t.failureCode) ? ` (${t.failureCode})` : ''}`,
        );
      },
      intervals: pollIntervals(settings, 5000, 15_000),
      cancel: () => s.cancel(taskUrl, 'DELETE'),
    });
    return finishVideo(s, req, url, { label: LABEL, engine: name, warnings, limits: settings });
  });
}
