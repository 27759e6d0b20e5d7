import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import type { FakeRequest } from '../../image/fakes/fake-http.ts';
import type { ProviderDeps, Sleep } from '../../image/provider-http.ts';
import { GenerationError } from '../../image/scene-engine.ts';
import type { VideoRequest } from '../video-engine.ts';
import { makeTestMp4, type VideoProviderFake } from './video-media.ts';

/**
 * The set-up the video provider adapters' tests share. `useProviderTestKit` registers the vitest
 * hooks: before all, a temp dir, a 2 s 320x240 test MP4 served by the provider's fake, and the
 * start frame (a solid PNG); after all, both removed; before each, the fake reset (mode `ok`,
 * 2 pending polls, no requests, no cancels) and the recorded waits cleared.
 */
export interface ProviderTestKitOptions<F extends VideoProviderFake> {
  /** Temp dir prefix. */
  name: string;
  apiKey: string;
  start: (mp4: Buffer, apiKey: string) => Promise<F>;
  /** The test MP4 has an audio track. */
  audio?: boolean;
  frame: { width: number; height: number; background: string };
  /** The request every test starts from (`startFrame`: the kit's frame). */
  request: Omit<VideoRequest, 'startFrame'>;
  /** More to reset before each test. */
  reset?: (fake: F) => void;
}

export interface ProviderTestKit<F extends VideoProviderFake> {
  readonly dir: string;
  readonly fake: F;
  readonly frame: Buffer;
  /** What `sleep` was asked to wait, in order. */
  readonly waits: number[];
  /** Records the wait and returns at once. */
  sleep: Sleep;
  /** The adapter settings the tests share (on the fake's origin, short timeouts), then `over`. */
  settings<S extends object>(
    over: S,
  ): { baseUrl: string; apiKey: string; timeoutMs: number; retryBaseMs: number; pollIntervalMs: number } & S;
  /** The fetchers that reach the fake and its CDN, with `sleeper` (default `sleep`; null: none, real waits). */
  deps(sleeper?: Sleep | null): ProviderDeps;
  request(over?: Partial<VideoRequest>): VideoRequest;
  /** The GenerationError `p` rejects with (the key never in its message). */
  failure(p: Promise<unknown>): Promise<GenerationError>;
  /** The JSON body of the first POST the fake received. */
  // biome-ignore lint/suspicious/noExplicitAny: request JSON is read field by field in tests
  posted(): any;
}

/** A solid image of the given size and colour. */
export function solidImage(width: number, height: number, background: string, format: 'png' | 'jpeg' = 'png') {
  const image = sharp({ create: { width, height, channels: 3, background } });
  return (format === 'png' ? image.png() : image.jpeg()).toBuffer();
}

/** What `p` rejects with (undefined when it resolves). */
export const rejection = (p: Promise<unknown>): Promise<unknown> =>
  p.then(
    () => undefined,
    (e: unknown) => e,
  );

export function useProviderTestKit<F extends VideoProviderFake>(o: ProviderTestKitOptions<F>): ProviderTestKit<F> {
  let dir: string;
  let fake: F;
  let frame: Buffer;
  const waits: number[] = [];
  const sleep: Sleep = async (ms) => {
    waits.push(ms);
  };

  beforeAll(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), `${o.name}-`));
    const clip = { seconds: 2, width: 320, height: 240, fps: 25, ...(o.audio ? { audio: true } : {}) };
    fake = await o.start(await fs.readFile(await makeTestMp4(dir, clip)), o.apiKey);
    frame = await solidImage(o.frame.width, o.frame.height, o.frame.background);
  });
  afterAll(async () => {
    await fake.close();
    await fs.rm(dir, { recursive: true, force: true });
  });
  beforeEach(() => {
    fake.mode = 'ok';
    fake.pendingPolls = 2;
    fake.requests.length = 0;
    fake.cdn.requests.length = 0;
    fake.cancelled.length = 0;
    o.reset?.(fake);
    waits.length = 0;
  });

  return {
    get dir() {
      return dir;
    },
    get fake() {
      return fake;
    },
    get frame() {
      return frame;
    },
    waits,
    sleep,
    settings: (over) => ({
      baseUrl: fake.origin,
      apiKey: o.apiKey,
      timeoutMs: 20_000,
      retryBaseMs: 5,
      pollIntervalMs: 100,
      ...over,
    }),
    deps: (sleeper = sleep) => ({
      fetcher: fake.fetcher,
      downloadFetcher: fake.cdn.fetcher,
      ...(sleeper ? { sleep: sleeper } : {}),
    }),
    request: (over = {}) => ({ ...o.request, startFrame: frame, ...over }),
    failure: async (p) => {
      const err = await rejection(p);
      expect(err).toBeInstanceOf(GenerationError);
      expect((err as Error).message).not.toContain(o.apiKey);
      return err as GenerationError;
    },
    posted: () => fake.requests.find((r: FakeRequest) => r.method === 'POST')?.json,
  };
}
