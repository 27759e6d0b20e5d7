import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../http/errors.ts';
import {
  DEFAULT_VIDEO_MODEL,
  intermediateFrameBounds,
  VIDEO_MODEL_REGISTRY,
  VIDEO_MODELS,
  type VideoModelId,
} from './video-models.ts';
import {
  canonicalFormat,
  type GenerateVideoBody,
  referencedAssetIds,
  type VideoAssetFacts,
  type VideoEntitlements,
  validateGenerateVideo,
} from './video-rules.ts';

const MB = 1024 * 1024;
const id = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;
const START = id(1);
const END = id(2);
const MID = [id(11), id(12), id(13), id(14), id(15), id(16)];
const IMG = Array.from({ length: 31 }, (_, i) => id(100 + i));
const VID = Array.from({ length: 11 }, (_, i) => id(200 + i));

const features = {
  brand_dna: true,
  critique: true,
  video_generation: true,
  reference_to_video: true,
  reference_videos: true,
  url_extraction: true,
};
const enterprise: VideoEntitlements = {
  planSlug: 'enterprise',
  features,
  videoModel8: { maxReferenceImages: 30, maxReferenceVideos: 10, maxDurationSeconds: 30 },
};
const pro: VideoEntitlements = {
  planSlug: 'pro',
  features: { ...features, critique: false, reference_videos: false },
  videoModel8: { maxReferenceImages: 4, maxReferenceVideos: 0, maxDurationSeconds: 10 },
};
const free: VideoEntitlements = {
  planSlug: 'free',
  features: { ...features, brand_dna: false, critique: false, reference_to_video: false, reference_videos: false },
  videoModel8: { maxReferenceImages: 0, maxReferenceVideos: 0, maxDurationSeconds: 0 },
};

const picture = (assetId: string, o: Partial<VideoAssetFacts> = {}): VideoAssetFacts => ({
  assetId,
  found: true,
  status: 'complete',
  type: 'image',
  format: 'PNG',
  fileSize: 2 * MB,
  origin: 'upload',
  ...o,
});
const video = (assetId: string, o: Partial<VideoAssetFacts> = {}): VideoAssetFacts => ({
  assetId,
  found: true,
  status: 'complete',
  type: 'video',
  format: 'MP4',
  fileSize: 50 * MB,
  durationSeconds: 5,
  fps: 30,
  origin: 'upload',
  ...o,
});
const library = (over: VideoAssetFacts[] = []): VideoAssetFacts[] => {
  const base = [START, END, ...MID, ...IMG].map((a) => picture(a));
  const vids = VID.map((a) => video(a, { durationSeconds: 2 }));
  const byId = new Map([...base, ...vids, ...over].map((a) => [a.assetId, a]));
  return [...byId.values()];
};

const i2v = (o: Partial<GenerateVideoBody> = {}): GenerateVideoBody => ({
  startImageAssetId: START,
  userPrompts: ['A slow pan across the product'],
  dimension: { width: 1280, height: 720 },
  ...o,
});
const r2v = (o: Partial<GenerateVideoBody> = {}): GenerateVideoBody => ({
  model: 'video-model-8',
  referenceImageAssetIds: [IMG[0]!],
  userPrompts: ['The product on a beach'],
  dimension: { width: 1280, height: 720 },
  ...o,
});

function errorOf(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected an AppError');
}

describe('video model registry', () => {
  it('has the ten ids, default video-model-7, references only on video-model-8, intermediates only on optimized', () => {
    expect(Object.keys(VIDEO_MODEL_REGISTRY).sort()).toEqual([...VIDEO_MODELS].sort());
    expect(VIDEO_MODELS).toHaveLength(10);
    expect(DEFAULT_VIDEO_MODEL).toBe('video-model-7');
    for (const m of Object.values(VIDEO_MODEL_REGISTRY)) {
      expect(m.references).toBe(m.id === 'video-model-8');
      expect(m.intermediateFrames).toBe(m.id === 'optimized');
      expect(m.startFrame).toBe(m.id === 'video-model-8' ? 'forbidden' : 'required');
      expect(m.enforceDurations).toBe(m.id === 'video-model-8');
      expect(m.durations).toContain(m.defaultDuration);
      expect(m.maxPrompts).toBeGreaterThanOrEqual(1);
    }
    expect(VIDEO_MODEL_REGISTRY['video-model-8'].endFrame).toBe(false);
    expect(VIDEO_MODEL_REGISTRY['video-model-8'].durations).toEqual([6, 8, 10, 15, 20, 30]);
  });

  it.each([
    [1, 1, 1],
    [5, 1, 1],
    [6, 1, 3],
    [10, 1, 3],
    [11, 2, 4],
    [20, 2, 4],
    [21, 3, 5],
    [60, 3, 5],
  ])('intermediate frame bounds for %i s: %i..%i', (d, min, max) => {
    expect(intermediateFrameBounds(d)).toEqual({ min, max });
  });

  it.each([
    ['image/jpeg', 'JPEG'],
    ['JPEG', 'JPEG'],
    ['png', 'PNG'],
    ['video/quicktime', 'QuickTime'],
    ['QuickTime', 'QuickTime'],
    ['video/mp4', 'MP4'],
    ['image', undefined],
    [null, undefined],
  ])('canonicalFormat(%j) = %j', (f, expected) => {
    expect(canonicalFormat(f)).toBe(expected);
  });
});

describe('defaults and normalization', () => {
  it('applies model, per-model duration and boolean defaults; reserves duration × prompts', () => {
    const r = validateGenerateVideo(i2v({ userPrompts: ['a', 'b', 'c'] }), free, library());
    expect(r).toEqual({
      model: 'video-model-7',
      duration: 8,
      userPrompts: ['a', 'b', 'c'],
      dimension: { width: 1280, height: 720 },
      enableAudio: false,
      promptIsEnhanced: false,
      useBrandDna: false,
      startImageAssetId: START,
      endImageAssetId: null,
      referenceImageAssetIds: [],
      referenceVideoAssetIds: [],
      intermediateImageAssetIds: [],
      reserveVideoSeconds: 24,
    });
  });

  it.each(VIDEO_MODELS.filter((m) => m !== 'video-model-8'))('default duration of %s', (model) => {
    const r = validateGenerateVideo(i2v({ model }), free, library());
    expect(r.duration).toBe(VIDEO_MODEL_REGISTRY[model].defaultDuration);
    expect(r.reserveVideoSeconds).toBe(r.duration);
  });

  it('video-model-8 defaults to 6 s and keeps reference order; ids lower-cased', () => {
    const imgs = [IMG[2]!, IMG[0]!, IMG[1]!];
    const r = validateGenerateVideo(
      r2v({ referenceImageAssetIds: imgs.map((x) => x.toUpperCase()), userPrompts: ['x', 'y'] }),
      pro,
      library(),
    );
    expect(r.duration).toBe(6);
    expect(r.referenceImageAssetIds).toEqual(imgs);
    expect(r.startImageAssetId).toBeNull();
    expect(r.reserveVideoSeconds).toBe(12);
  });

  it('non-video-model-8 accepts any duration 1..60 (no per-model allow-list)', () => {
    expect(validateGenerateVideo(i2v({ model: 'video-model-1', duration: 7 }), free, library()).duration).toBe(7);
    expect(validateGenerateVideo(i2v({ duration: 60 }), free, library()).reserveVideoSeconds).toBe(60);
  });

  it('passes the explicit flags and partner through', () => {
    const r = validateGenerateVideo(
      i2v({ enableAudio: true, promptIsEnhanced: true, useBrandDna: true, partner: 'partner-1', endImageAssetId: END }),
      enterprise,
      library(),
    );
    expect(r).toMatchObject({
      enableAudio: true,
      promptIsEnhanced: true,
      useBrandDna: true,
      partner: 'partner-1',
      endImageAssetId: END,
    });
  });

  it('accepts a full business-tier reference request (images + videos) and optimized with intermediates', () => {
    const business: VideoEntitlements = {
      ...enterprise,
      planSlug: 'business',
      videoModel8: { maxReferenceImages: 12, maxReferenceVideos: 4, maxDurationSeconds: 20 },
    };
    const r = validateGenerateVideo(
      r2v({ referenceImageAssetIds: IMG.slice(0, 12), referenceVideoAssetIds: VID.slice(0, 4), duration: 20 }),
      business,
      library(),
    );
    expect(r.referenceVideoAssetIds).toEqual(VID.slice(0, 4));
    const o = validateGenerateVideo(
      i2v({ model: 'optimized', duration: 15, intermediateImageAssetIds: MID.slice(0, 4), endImageAssetId: END }),
      free,
      library(),
    );
    expect(o.intermediateImageAssetIds).toEqual(MID.slice(0, 4));
  });

  it('referencedAssetIds lists every id once', () => {
    expect(
      referencedAssetIds({
        startImageAssetId: START,
        endImageAssetId: START.toUpperCase(),
        intermediateImageAssetIds: [MID[0]!],
        referenceImageAssetIds: [IMG[0]!],
        referenceVideoAssetIds: [VID[0]!],
      }),
    ).toEqual([START, MID[0], IMG[0], VID[0]]);
  });
});

type Case = [
  name: string,
  body: GenerateVideoBody,
  plan: VideoEntitlements,
  assets: VideoAssetFacts[],
  status: number,
  code: string,
  field?: string,
];

const bad = (b: Record<string, unknown>) => b as unknown as GenerateVideoBody;

const bodyCases: Case[] = [
  // model
  [
    'unknown model',
    bad({ ...i2v(), model: 'video-model-10' }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.model',
  ],
  // prompts
  ['no prompts', i2v({ userPrompts: [] }), enterprise, library(), 400, 'INVALID_REQUEST', 'body.userPrompts'],
  [
    'prompts missing',
    bad({ ...i2v(), userPrompts: undefined }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.userPrompts',
  ],
  [
    'too many prompts (5 > 4)',
    i2v({ userPrompts: ['a', 'b', 'c', 'd', 'e'] }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.userPrompts',
  ],
  [
    'too many prompts for video-model-8 (3 > 2)',
    r2v({ userPrompts: ['a', 'b', 'c'] }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.userPrompts',
  ],
  [
    'empty prompt',
    i2v({ userPrompts: ['ok', ''] }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.userPrompts[1]',
  ],
  [
    'prompt of 1001 chars',
    i2v({ userPrompts: ['x'.repeat(1001)] }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.userPrompts[0]',
  ],
  ['blank prompt', i2v({ userPrompts: ['   '] }), enterprise, library(), 400, 'INVALID_REQUEST', 'body.userPrompts[0]'],
  [
    'prompt with NUL',
    i2v({ userPrompts: ['a\u0000b'] }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.userPrompts[0]',
  ],
  [
    'non-string prompt',
    bad({ ...i2v(), userPrompts: [3] }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.userPrompts[0]',
  ],
  // dimension
  [
    'dimension missing',
    bad({ ...i2v(), dimension: undefined }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.dimension',
  ],
  [
    'width below 256',
    i2v({ dimension: { width: 254, height: 720 } }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.dimension.width',
  ],
  [
    'height over 1920 on an HD model',
    i2v({ model: 'video-model-1', dimension: { width: 1280, height: 2160 } }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.dimension.height',
  ],
  [
    'height over 3840 on a UHD model',
    i2v({ dimension: { width: 1280, height: 3842 } }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.dimension.height',
  ],
  [
    'odd width',
    i2v({ dimension: { width: 1281, height: 720 } }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.dimension.width',
  ],
  [
    'fractional height',
    i2v({ dimension: { width: 1280, height: 720.5 } }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.dimension.height',
  ],
  // duration
  ['duration 0', i2v({ duration: 0 }), enterprise, library(), 400, 'INVALID_REQUEST', 'body.duration'],
  ['duration 61', i2v({ duration: 61 }), enterprise, library(), 400, 'INVALID_REQUEST', 'body.duration'],
  ['duration 7 on video-model-8', r2v({ duration: 7 }), enterprise, library(), 400, 'INVALID_REQUEST', 'body.duration'],
  // audio and flags
  [
    'audio on a model without audio',
    i2v({ model: 'video-model-1', enableAudio: true }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.enableAudio',
  ],
  [
    'audio on optimized',
    i2v({ model: 'optimized', enableAudio: true }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.enableAudio',
  ],
  [
    'non-boolean useBrandDna',
    bad({ ...i2v(), useBrandDna: 'yes' }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.useBrandDna',
  ],
  // start frame
  [
    'start frame missing',
    i2v({ startImageAssetId: undefined }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.startImageAssetId',
  ],
  [
    'start frame null on optimized',
    i2v({ model: 'optimized', startImageAssetId: null }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.startImageAssetId',
  ],
  [
    'start frame on video-model-8',
    r2v({ startImageAssetId: START }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.startImageAssetId',
  ],
  // end frame
  [
    'end frame on video-model-1',
    i2v({ model: 'video-model-1', endImageAssetId: END }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.endImageAssetId',
  ],
  [
    'end frame on video-model-3',
    i2v({ model: 'video-model-3', endImageAssetId: END }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.endImageAssetId',
  ],
  [
    'end frame on video-model-8',
    r2v({ endImageAssetId: END }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.endImageAssetId',
  ],
  // intermediate frames
  [
    'intermediates on video-model-7',
    i2v({ intermediateImageAssetIds: [MID[0]!] }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.intermediateImageAssetIds',
  ],
  [
    'intermediates on video-model-8',
    r2v({ intermediateImageAssetIds: [MID[0]!] }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.intermediateImageAssetIds',
  ],
  [
    'empty intermediates',
    i2v({ model: 'optimized', intermediateImageAssetIds: [] }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.intermediateImageAssetIds',
  ],
  [
    '6 intermediates',
    i2v({ model: 'optimized', duration: 30, intermediateImageAssetIds: MID }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.intermediateImageAssetIds',
  ],
  [
    '2 intermediates for 5 s (max 1)',
    i2v({ model: 'optimized', duration: 5, intermediateImageAssetIds: MID.slice(0, 2) }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.intermediateImageAssetIds',
  ],
  [
    '1 intermediate for 15 s (min 2)',
    i2v({ model: 'optimized', duration: 15, intermediateImageAssetIds: MID.slice(0, 1) }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.intermediateImageAssetIds',
  ],
  [
    '4 intermediates for the default 10 s (max 3)',
    i2v({ model: 'optimized', intermediateImageAssetIds: MID.slice(0, 4) }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.intermediateImageAssetIds',
  ],
  [
    'repeated intermediate',
    i2v({ model: 'optimized', intermediateImageAssetIds: [MID[0]!, MID[0]!.toUpperCase()] }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.intermediateImageAssetIds[1]',
  ],
  // references: model and counts
  [
    'reference image on video-model-7',
    i2v({ referenceImageAssetIds: [IMG[0]!] }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.referenceImageAssetIds',
  ],
  [
    'reference video on optimized',
    i2v({ model: 'optimized', referenceVideoAssetIds: [VID[0]!] }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.referenceVideoAssetIds',
  ],
  [
    'video-model-8 without references',
    r2v({ referenceImageAssetIds: [] }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.referenceImageAssetIds',
  ],
  [
    '31 reference images',
    r2v({ referenceImageAssetIds: IMG }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.referenceImageAssetIds',
  ],
  [
    '11 reference videos',
    r2v({ referenceVideoAssetIds: VID }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.referenceVideoAssetIds',
  ],
  [
    'repeated reference image',
    r2v({ referenceImageAssetIds: [IMG[0]!, IMG[0]!] }),
    enterprise,
    library(),
    400,
    'INVALID_REQUEST',
    'body.referenceImageAssetIds[1]',
  ],
];

const planCases: Case[] = [
  [
    'no video_generation',
    i2v(),
    { ...enterprise, features: { ...features, video_generation: false } },
    library(),
    403,
    'FORBIDDEN',
  ],
  ['useBrandDna without brand_dna', i2v({ useBrandDna: true }), free, library(), 403, 'FORBIDDEN'],
  ['video-model-8 without reference_to_video', r2v(), free, library(), 403, 'upgrade_required'],
  [
    'reference videos without reference_videos',
    r2v({ referenceVideoAssetIds: [VID[0]!] }),
    pro,
    library(),
    403,
    'upgrade_required',
  ],
  [
    'reference videos over the cap (feature on, cap 0)',
    r2v({ referenceVideoAssetIds: [VID[0]!] }),
    { ...enterprise, videoModel8: { ...enterprise.videoModel8, maxReferenceVideos: 0 } },
    library(),
    403,
    'upgrade_required',
  ],
  [
    '5 reference images on pro (cap 4)',
    r2v({ referenceImageAssetIds: IMG.slice(0, 5) }),
    pro,
    library(),
    403,
    'upgrade_required',
  ],
  [
    '5 reference videos over a cap of 4',
    r2v({ referenceVideoAssetIds: VID.slice(0, 5) }),
    { ...enterprise, videoModel8: { ...enterprise.videoModel8, maxReferenceVideos: 4 } },
    library(),
    403,
    'upgrade_required',
  ],
  ['15 s on pro (cap 10)', r2v({ duration: 15 }), pro, library(), 403, 'upgrade_required'],
];

const slow = (o: Partial<VideoAssetFacts>) => [video(VID[0]!, o)];
const refImg = (o: Partial<VideoAssetFacts>) => library([picture(IMG[0]!, o)]);
const assetCases: Case[] = [
  // not of the organization
  ['start frame unknown', i2v({ startImageAssetId: id(999) }), enterprise, library(), 404, 'ASSET_NOT_FOUND'],
  ['start frame found:false', i2v(), enterprise, library([picture(START, { found: false })]), 404, 'ASSET_NOT_FOUND'],
  ['end frame unknown', i2v({ endImageAssetId: id(998) }), enterprise, library(), 404, 'ASSET_NOT_FOUND'],
  [
    'intermediate unknown',
    i2v({ model: 'optimized', intermediateImageAssetIds: [id(997)] }),
    enterprise,
    library(),
    404,
    'ASSET_NOT_FOUND',
  ],
  [
    'reference image unknown',
    r2v({ referenceImageAssetIds: [id(996)] }),
    enterprise,
    library(),
    404,
    'ASSET_NOT_FOUND',
  ],
  [
    'reference video unknown',
    r2v({ referenceVideoAssetIds: [id(995)] }),
    enterprise,
    library(),
    404,
    'ASSET_NOT_FOUND',
  ],
  // frames
  [
    'start frame processing',
    i2v(),
    enterprise,
    library([picture(START, { status: 'processing' })]),
    422,
    'ASSET_NOT_READY',
  ],
  [
    'start frame uploaded',
    i2v(),
    enterprise,
    library([picture(START, { status: 'uploaded' })]),
    422,
    'ASSET_NOT_READY',
  ],
  [
    'end frame failed',
    i2v({ endImageAssetId: END }),
    enterprise,
    library([picture(END, { status: 'failed' })]),
    422,
    'ASSET_NOT_READY',
  ],
  ['start frame is a video', i2v(), enterprise, library([video(START)]), 422, 'ASSET_NOT_IMAGE'],
  // reference images
  [
    'reference image GIF',
    r2v(),
    enterprise,
    refImg({ format: 'GIF' }),
    400,
    'INVALID_REQUEST',
    'body.referenceImageAssetIds[0]',
  ],
  [
    'reference image bare image not generated',
    r2v(),
    enterprise,
    refImg({ format: 'image' }),
    400,
    'INVALID_REQUEST',
    'body.referenceImageAssetIds[0]',
  ],
  [
    'reference image of type video',
    r2v(),
    enterprise,
    refImg({ type: 'video' }),
    400,
    'INVALID_REQUEST',
    'body.referenceImageAssetIds[0]',
  ],
  [
    'reference image of type document',
    r2v(),
    enterprise,
    refImg({ type: 'document' }),
    400,
    'INVALID_REQUEST',
    'body.referenceImageAssetIds[0]',
  ],
  [
    'reference image over 120 MB',
    r2v(),
    enterprise,
    refImg({ fileSize: 120 * MB + 1 }),
    400,
    'INVALID_REQUEST',
    'body.referenceImageAssetIds[0]',
  ],
  ['reference image uploading', r2v(), enterprise, refImg({ status: 'uploading' }), 422, 'ASSET_NOT_READY'],
  ['reference image failed', r2v(), enterprise, refImg({ status: 'failed' }), 422, 'ASSET_NOT_READY'],
  // reference videos
  [
    'reference video of type image',
    r2v({ referenceVideoAssetIds: [VID[0]!] }),
    enterprise,
    library([video(VID[0]!, { type: 'image' })]),
    400,
    'INVALID_REQUEST',
    'body.referenceVideoAssetIds[0]',
  ],
  [
    'reference video GIF',
    r2v({ referenceVideoAssetIds: [VID[0]!] }),
    enterprise,
    library(slow({ format: 'GIF' })),
    400,
    'INVALID_REQUEST',
    'body.referenceVideoAssetIds[0]',
  ],
  [
    'reference video over 200 MB',
    r2v({ referenceVideoAssetIds: [VID[0]!] }),
    enterprise,
    library(slow({ fileSize: 200 * MB + 1 })),
    400,
    'INVALID_REQUEST',
    'body.referenceVideoAssetIds[0]',
  ],
  [
    'reference video 1.7 s',
    r2v({ referenceVideoAssetIds: [VID[0]!] }),
    enterprise,
    library(slow({ durationSeconds: 1.7 })),
    400,
    'INVALID_REQUEST',
    'body.referenceVideoAssetIds[0]',
  ],
  [
    'reference video 30.3 s',
    r2v({ referenceVideoAssetIds: [VID[0]!] }),
    enterprise,
    library(slow({ durationSeconds: 30.3 })),
    400,
    'INVALID_REQUEST',
    'body.referenceVideoAssetIds[0]',
  ],
  [
    'reference video 23.7 FPS',
    r2v({ referenceVideoAssetIds: [VID[0]!] }),
    enterprise,
    library(slow({ fps: 23.7 })),
    400,
    'INVALID_REQUEST',
    'body.referenceVideoAssetIds[0]',
  ],
  [
    'reference video 60.1 FPS',
    r2v({ referenceVideoAssetIds: [VID[0]!] }),
    enterprise,
    library(slow({ fps: 60.1 })),
    400,
    'INVALID_REQUEST',
    'body.referenceVideoAssetIds[0]',
  ],
  [
    'reference videos 30.2 s combined over 30',
    r2v({ referenceVideoAssetIds: VID.slice(0, 2) }),
    enterprise,
    library([video(VID[0]!, { durationSeconds: 15.1 }), video(VID[1]!, { durationSeconds: 15.1 })]),
    400,
    'INVALID_REQUEST',
    'body.referenceVideoAssetIds',
  ],
  [
    'reference video unmeasured, processing',
    r2v({ referenceVideoAssetIds: [VID[0]!] }),
    enterprise,
    library(slow({ status: 'processing', durationSeconds: undefined })),
    409,
    'conflict',
  ],
  [
    'reference video unmeasured, uploaded',
    r2v({ referenceVideoAssetIds: [VID[0]!] }),
    enterprise,
    library(slow({ status: 'uploaded', durationSeconds: null })),
    409,
    'conflict',
  ],
  [
    'reference video unmeasured, complete',
    r2v({ referenceVideoAssetIds: [VID[0]!] }),
    enterprise,
    library(slow({ durationSeconds: null })),
    400,
    'invalid_argument',
  ],
  [
    'reference video without FPS, complete',
    r2v({ referenceVideoAssetIds: [VID[0]!] }),
    enterprise,
    library(slow({ fps: undefined })),
    400,
    'invalid_argument',
  ],
  [
    'reference video measured but processing',
    r2v({ referenceVideoAssetIds: [VID[0]!] }),
    enterprise,
    library(slow({ status: 'processing' })),
    422,
    'ASSET_NOT_READY',
  ],
  [
    'reference video unmeasured, failed',
    r2v({ referenceVideoAssetIds: [VID[0]!] }),
    enterprise,
    library(slow({ status: 'failed', durationSeconds: null })),
    422,
    'ASSET_NOT_READY',
  ],
];

describe.each([
  ['body rules', bodyCases],
  ['plan gating', planCases],
  ['referenced assets', assetCases],
])('%s', (_group, cases) => {
  it.each(cases)('%s → %i %s', (_name, body, plan, assets, status, code, field) => {
    const e = errorOf(() => validateGenerateVideo(body, plan, assets));
    expect({ status: e.statusCode, code: e.code }).toEqual({ status, code });
    if (field) expect(e.details).toEqual({ fields: [{ field, message: expect.any(String) }] });
  });
});

describe('edge values that pass', () => {
  it.each<[string, GenerateVideoBody, VideoEntitlements, VideoAssetFacts[]]>([
    ['reference image uploaded', r2v(), enterprise, refImg({ status: 'uploaded' })],
    ['reference image processing', r2v(), enterprise, refImg({ status: 'processing' })],
    [
      'generated reference image with bare image type',
      r2v(),
      enterprise,
      refImg({ format: 'image', origin: 'generated' }),
    ],
    [
      'reference image JPEG MIME, logo, exactly 120 MB',
      r2v(),
      enterprise,
      refImg({ format: 'image/jpeg', type: 'logo', fileSize: 120 * MB }),
    ],
    ['reference image of type environment', r2v(), enterprise, refImg({ type: 'environment' })],
    ['generated start frame', i2v(), enterprise, library([picture(START, { format: 'image', origin: 'generated' })])],
    [
      'reference video only (no images)',
      r2v({ referenceImageAssetIds: [], referenceVideoAssetIds: [VID[0]!] }),
      enterprise,
      library(),
    ],
    [
      'reference video bounds 1.8 s / 23.8 FPS / QuickTime / 200 MB',
      r2v({ referenceVideoAssetIds: [VID[0]!] }),
      enterprise,
      library(slow({ durationSeconds: 1.8, fps: 23.8, format: 'video/quicktime', fileSize: 200 * MB })),
    ],
    [
      'reference video 30 s at 60 FPS',
      r2v({ referenceVideoAssetIds: [VID[0]!] }),
      enterprise,
      library(slow({ durationSeconds: 30, fps: 60 })),
    ],
    [
      'exactly 30 s combined',
      r2v({ referenceVideoAssetIds: VID.slice(0, 2) }),
      enterprise,
      library([video(VID[0]!, { durationSeconds: 15 }), video(VID[1]!, { durationSeconds: 15 })]),
    ],
    [
      'tier caps reached exactly (pro: 4 images, 10 s)',
      r2v({ referenceImageAssetIds: IMG.slice(0, 4), duration: 10 }),
      pro,
      library(),
    ],
    [
      '30 images and 10 videos on enterprise, 30 s',
      r2v({ referenceImageAssetIds: IMG.slice(0, 30), referenceVideoAssetIds: VID.slice(0, 10), duration: 30 }),
      enterprise,
      library(),
    ],
    ['start = end frame', i2v({ endImageAssetId: START }), enterprise, library()],
    [
      'empty reference arrays on video-model-7',
      i2v({ referenceImageAssetIds: [], referenceVideoAssetIds: [] }),
      enterprise,
      library(),
    ],
  ])('%s', (_name, body, plan, assets) => {
    expect(() => validateGenerateVideo(body, plan, assets)).not.toThrow();
  });

  it('the 30.2 s single reference video is rejected by the 30 s combined rule', () => {
    const e = errorOf(() =>
      validateGenerateVideo(
        r2v({ referenceVideoAssetIds: [VID[0]!] }),
        enterprise,
        library(slow({ durationSeconds: 30.2 })),
      ),
    );
    expect(e.details).toEqual({ fields: [{ field: 'body.referenceVideoAssetIds', message: expect.any(String) }] });
  });

  it('accepts a Map of facts', () => {
    const map = new Map(library().map((a) => [a.assetId, a]));
    expect(validateGenerateVideo(i2v(), enterprise, map).startImageAssetId).toBe(START);
  });
});

describe('property: any request normalizes or throws an AppError', () => {
  const anyId = fc.constantFrom(START, END, ...MID.slice(0, 3), ...IMG.slice(0, 6), ...VID.slice(0, 4), id(999));
  const maybe = <T>(a: fc.Arbitrary<T>) => fc.option(a, { nil: undefined });
  const junk = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.boolean(), fc.double());
  const body = fc.record(
    {
      model: fc.oneof(fc.constantFrom<VideoModelId | string>(...VIDEO_MODELS, 'nope'), junk),
      startImageAssetId: fc.oneof(anyId, junk),
      endImageAssetId: fc.oneof(anyId, junk),
      referenceImageAssetIds: fc.oneof(fc.array(anyId, { maxLength: 8 }), junk),
      referenceVideoAssetIds: fc.oneof(fc.array(anyId, { maxLength: 5 }), junk),
      intermediateImageAssetIds: fc.oneof(fc.array(anyId, { maxLength: 6 }), junk),
      userPrompts: fc.oneof(fc.array(fc.string({ maxLength: 20 }), { maxLength: 5 }), junk),
      dimension: fc.oneof(
        fc.record({ width: fc.integer({ min: 0, max: 5000 }), height: fc.integer({ min: 0, max: 5000 }) }),
        fc.record({ width: junk, height: junk }),
        junk,
      ),
      enableAudio: fc.oneof(fc.boolean(), junk),
      duration: fc.oneof(fc.integer({ min: -2, max: 70 }), junk),
      promptIsEnhanced: fc.oneof(fc.boolean(), junk),
      useBrandDna: fc.oneof(fc.boolean(), junk),
      partner: junk,
    },
    { requiredKeys: [] },
  );
  const facts: fc.Arbitrary<VideoAssetFacts> = fc.record({
    assetId: anyId,
    found: fc.boolean(),
    status: fc.constantFrom('uploading', 'uploaded', 'processing', 'complete', 'failed', 'canceled'),
    type: fc.constantFrom('image', 'logo', 'video', 'environment', 'document'),
    format: fc.oneof(fc.constantFrom('JPEG', 'PNG', 'GIF', 'MP4', 'video/quicktime', 'image'), fc.constant(null)),
    fileSize: fc.integer({ min: 0, max: 300 * MB }),
    durationSeconds: maybe(fc.oneof(fc.double({ min: 0, max: 40, noNaN: true }), fc.constant(null))),
    fps: maybe(fc.double({ min: 0, max: 90, noNaN: true })),
    origin: fc.constantFrom('upload', 'extraction', 'generated'),
  });
  const plan = fc.constantFrom(free, pro, enterprise);

  it('never throws anything but an AppError, and normalized output obeys the registry', () => {
    fc.assert(
      fc.property(body, plan, fc.array(facts, { maxLength: 20 }), (b, p, a) => {
        let r: ReturnType<typeof validateGenerateVideo>;
        try {
          r = validateGenerateVideo(b as unknown as GenerateVideoBody, p, a);
        } catch (e) {
          expect(e).toBeInstanceOf(AppError);
          expect([400, 403, 404, 409, 422]).toContain((e as AppError).statusCode);
          return;
        }
        const m = VIDEO_MODEL_REGISTRY[r.model];
        expect(r.reserveVideoSeconds).toBe(r.duration * r.userPrompts.length);
        expect(r.userPrompts.length).toBeGreaterThanOrEqual(1);
        expect(r.userPrompts.length).toBeLessThanOrEqual(m.maxPrompts);
        expect(r.startImageAssetId === null).toBe(m.startFrame === 'forbidden');
        if (!m.references) expect(r.referenceImageAssetIds.length + r.referenceVideoAssetIds.length).toBe(0);
        if (!m.intermediateFrames) expect(r.intermediateImageAssetIds).toEqual([]);
      }),
      { numRuns: 2000 },
    );
  });
});
