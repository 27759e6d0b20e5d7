import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CAMERA_MOVES, type CameraMove, chooseCameraMove } from '../../video/camera.ts';
import type { SceneBrandContext } from '../scene-enhancer.ts';
import {
  type FrameContext,
  VIDEO_CAMERA_PHRASES,
  VIDEO_PROMPT_MAX,
  VIDEO_PROMPT_MAX_REFERENCE,
  VIDEO_WARNING_CODES,
  type VideoEnhancementInput,
  videoPromptMax,
} from '../video-enhancer.ts';
import {
  autoCameraMove,
  beatTimes,
  cameraMovesIn,
  cameraSentences,
  createLocalVideoEnhancer,
  enhanceVideo,
  meaningfulFileName,
} from './video-enhancer.local.ts';

const SERUM: FrameContext = {
  description: 'Vitamin C face serum in an amber glass dropper bottle, on a white background.',
  tags: ['serum', 'skincare', 'product-on-plain-background'],
  colors: ['orange', 'white'],
};
const LUXE: SceneBrandContext = {
  name: 'Maison',
  tone: ['Luxurious'],
  palette: [
    { hex: '#1b2a4a', role: 'primary' },
    { hex: '#d4af37', role: 'accent' },
  ],
  imageryStyle: ['warm'],
  wordsToAvoid: ['cheap', 'glossy'],
};
const input = (over: Partial<VideoEnhancementInput> = {}): VideoEnhancementInput => ({
  originalPrompt: 'Our serum on a marble bathroom shelf, soft morning light',
  aspectRatio: '16:9',
  model: 'video-model-7',
  durationSeconds: 5,
  enableAudio: false,
  maxChars: 2500,
  start: SERUM,
  intermediate: [],
  referenceImages: [],
  referenceVideos: [],
  ...over,
});
const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);
const run = (over: Partial<VideoEnhancementInput> = {}) => enhanceVideo(input(over));
const codes = (r: { warnings: { code: string }[] }) => r.warnings.map((w) => w.code);
/** Every `a–b s` range of a prompt. */
const ranges = (text: string) =>
  [...text.matchAll(/(\d+(?:\.\d+)?)–(\d+(?:\.\d+)?) s/g)].map((m) => [Number(m[1]), Number(m[2])] as const);
/** The enhancement without the user's text (what the enhancer added). */
const added = (r: { enhancedPrompt: string }, prompt: string) => r.enhancedPrompt.slice(prompt.length + 1);

/** A phrase of the user's for each move. */
const USER_PHRASES: Record<CameraMove, string> = {
  static: 'locked-off shot',
  'push-in': 'slow push in',
  'pull-out': 'pull back',
  dolly: 'dolly shot',
  orbit: 'orbiting',
  'pan-left': 'pan left',
  'pan-right': 'panning right',
  'tilt-up': 'tilt up',
  'tilt-down': 'tilting down',
  crane: 'jib',
};

describe('local video enhancer: camera', () => {
  it.each(CAMERA_MOVES)('names %s in words the video engine reads back', (move) => {
    for (const s of ['the serum', 'the subject']) {
      for (const text of cameraSentences(move, s, 'slow', 8)) {
        expect(chooseCameraMove(text, 7)).toMatchObject({ move, source: 'prompt' });
        // No other move is mentioned anywhere in our sentence.
        expect(new Set(cameraMovesIn(text).map((m) => m.move))).toEqual(new Set([move]));
      }
      for (const text of cameraSentences(move, s, 'slow', 8, { alongside: true })) {
        expect(chooseCameraMove(text, 1).move).toBe(move);
      }
    }
    expect(chooseCameraMove(VIDEO_CAMERA_PHRASES[move], 3).move).toBe(move);
  });

  it.each(CAMERA_MOVES)('keeps the user-named move %s and round-trips it', (move) => {
    const prompt = `Our serum on a marble shelf, ${USER_PHRASES[move]}, soft morning light`;
    for (const over of [{}, { durationSeconds: 2 }, { durationSeconds: 20, aspectRatio: '9:16' as const }]) {
      const r = run({ originalPrompt: prompt, ...over });
      expect(r.camera).toBe(move);
      expect(chooseCameraMove(r.enhancedPrompt, 5).move).toBe(move);
      // What we added names the same move (or only repeats the user's words).
      const ours = new Set(cameraMovesIn(added(r, prompt)).map((m) => m.move));
      expect([...ours]).toEqual([move]);
      expect(codes(r)).not.toContain('CAMERA_CONFLICT');
    }
  });

  it('chooses a move for the subject and duration when the prompt names none, and round-trips it', () => {
    const cases: [Partial<VideoEnhancementInput>, CameraMove][] = [
      [{ durationSeconds: 3 }, 'static'],
      [{ durationSeconds: 8, originalPrompt: 'Our serum, no camera movement at all' }, 'static'],
      [{ durationSeconds: 5 }, 'push-in'],
      [{ durationSeconds: 10 }, 'orbit'],
      [{ durationSeconds: 10, end: SERUM }, 'dolly'],
      [{ durationSeconds: 8, start: undefined, originalPrompt: 'A woman walking her dog in the morning' }, 'dolly'],
      [{ durationSeconds: 8, start: undefined, originalPrompt: 'Sunset over a quiet beach' }, 'pan-right'],
      [{ durationSeconds: 8, start: undefined, originalPrompt: 'A beach at sunset, moving to the left' }, 'pan-left'],
      [{ durationSeconds: 8, start: undefined, originalPrompt: 'A beach at sunset', aspectRatio: '9:16' }, 'tilt-up'],
      [
        { durationSeconds: 8, start: undefined, originalPrompt: 'A waterfall seen from the top', aspectRatio: '9:16' },
        'tilt-down',
      ],
      [{ durationSeconds: 8, start: undefined, originalPrompt: 'The city skyline, revealing the harbour' }, 'crane'],
    ];
    for (const [over, move] of cases) {
      const r = run(over);
      expect({ over, camera: r.camera }).toEqual({ over, camera: move });
      expect(chooseCameraMove(r.enhancedPrompt, 0)).toMatchObject({ move, source: 'prompt' });
    }
  });

  it('round-trips whatever the prompt, frames and brand say (property)', () => {
    const word = fc.constantFrom(
      'serum',
      'pan',
      'frying pan',
      'crane',
      'static electricity',
      'tilt',
      'orbit',
      'beach',
      'woman',
      'walking',
      'skyline',
      '360',
      'turntable',
      'zoom in',
      'pedestal',
      'glossy',
      'cheap',
      'bottle',
      'left',
      'down',
      'vertical',
    );
    const text = fc.array(word, { maxLength: 8 }).map((ws) => ws.join(' '));
    const frame = fc.record({
      description: fc.option(text, { nil: undefined }),
      tags: fc.array(word, { maxLength: 3 }),
      colors: fc.array(fc.constantFrom('orange', 'light-blue', 'white'), { maxLength: 2 }),
    });
    fc.assert(
      fc.property(
        text,
        fc.option(frame, { nil: undefined }),
        fc.array(frame, { maxLength: 3 }),
        fc.integer({ min: 1, max: 30 }),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom('16:9' as const, '9:16' as const),
        (prompt, start, inter, dur, audio, withBrand, ratio) => {
          const r = run({
            originalPrompt: prompt || 'x',
            start,
            intermediate: inter,
            durationSeconds: dur,
            enableAudio: audio,
            aspectRatio: ratio,
            brand: withBrand ? LUXE : undefined,
          });
          const read = chooseCameraMove(r.enhancedPrompt, dur);
          expect(read.source).toBe('prompt');
          expect(read.move).toBe(r.camera);
          const userMove = cameraMovesIn(prompt || 'x')[0]?.move;
          if (userMove) expect(r.camera).toBe(userMove);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('warns CAMERA_CONFLICT when the prompt names two moves, and follows the first', () => {
    const r = run({ originalPrompt: 'Push in on the serum, then orbit around it' });
    expect(r.camera).toBe('push-in');
    expect(codes(r)).toContain('CAMERA_CONFLICT');
    expect(r.warnings.find((w) => w.code === 'CAMERA_CONFLICT')?.message).toMatch(/"push in".*"orbit"/);
    // Same move twice, or a longer phrase of the same move, is no conflict.
    expect(codes(run({ originalPrompt: 'Push in slowly, keep zooming in' }))).not.toContain('CAMERA_CONFLICT');
    expect(codes(run({ originalPrompt: 'A slow tilt down over the serum' }))).not.toContain('CAMERA_CONFLICT');
  });

  it('does not contradict a direction the engine cannot read ("pan to the left")', () => {
    const r = run({ originalPrompt: 'A beach, pan slowly to the left' });
    expect(r.camera).toBe('pan-right'); // what the video engine reads from "pan"
    expect(r.enhancedPrompt).not.toMatch(/pan right/i);
    expect(r.enhancedPrompt).toMatch(/keep the pan as written/);
  });
});

describe('local video enhancer: pacing and transitions', () => {
  it.each([1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 30, 2.5])('fits the beats to %s s', (d) => {
    const r = run({ durationSeconds: d });
    const rs = ranges(r.enhancedPrompt);
    expect(rs.length).toBeGreaterThan(0);
    expect(rs[0]![0]).toBe(0);
    for (const [a, b] of rs) {
      expect(a).toBeLessThan(b);
      expect(b).toBeLessThanOrEqual(d);
    }
    for (let i = 1; i < rs.length; i++) expect(rs[i]![0]).toBe(rs[i - 1]![1]);
    expect(rs.at(-1)![1]).toBe(d);
    // Fewer beats for short clips.
    expect(rs.length).toBe(d <= 3 ? 1 : d <= 6 ? 2 : d <= 12 ? 3 : 4);
    expect(r.enhancedPrompt).toContain(`Pacing (${d} s`);
  });

  it('holds on the subject at the end, or lands on the end frame', () => {
    expect(run({ durationSeconds: 10 }).enhancedPrompt).toMatch(/final 2 s \(8–10 s\), the move settles and holds/);
    const r = run({
      durationSeconds: 10,
      end: { description: 'The serum beside a sliced orange', tags: [], colors: [] },
    });
    expect(r.enhancedPrompt).toMatch(
      /final 2 s \(8–10 s\), land on the end frame — the serum beside a sliced orange —/,
    );
  });

  it('dissolves through the intermediate frames in order and lands on the end frame', () => {
    const inter = ['a golden drop falling', 'orange slices glistening', 'a splash of juice'].map((description) => ({
      description,
      tags: [],
      colors: [],
    }));
    const r = run({
      model: 'optimized',
      durationSeconds: 10,
      intermediate: inter,
      end: { description: 'The bottle beside a sliced orange', tags: [], colors: [] },
    });
    const p = r.enhancedPrompt;
    const at = inter.map((f) => p.indexOf(f.description!));
    expect(at.every((i) => i > 0)).toBe(true);
    expect([...at].sort((a, b) => a - b)).toEqual(at);
    const times = [...p.matchAll(/at ~(\d+(?:\.\d+)?) s dissolve smoothly into/g)].map((m) => Number(m[1]));
    expect(times).toEqual([3, 5, 8]);
    expect(p.indexOf('the end frame — the bottle beside a sliced orange')).toBeGreaterThan(at[2]!);
    expect(p).toMatch(/land on it at 10 s/);
    const rs = ranges(p);
    expect(rs[0]).toEqual([0, 3]);
    expect(rs.at(-1)![1]).toBe(10);
    // Many frames in a short clip still get increasing times inside the clip.
    const many = run({ durationSeconds: 2, intermediate: [...inter, ...inter] });
    const ts = [...many.enhancedPrompt.matchAll(/at ~(\d+(?:\.\d+)?) s/g)].map((m) => Number(m[1]));
    expect(ts).toHaveLength(6);
    expect(ts.every((t, i) => t > 0 && t < 2 && (i === 0 || t > ts[i - 1]!))).toBe(true);
  });

  it('rounds beat times to the coarsest step that keeps them apart', () => {
    expect(beatTimes(10, [0.2, 0.8])).toEqual([2, 8]);
    expect(beatTimes(5, [0.75])).toEqual([4]);
    expect(beatTimes(3, [1 / 3, 2 / 3])).toEqual([1, 2]);
    expect(beatTimes(2, [0.25, 0.5, 0.75])).toEqual([0.5, 1, 1.5]);
    expect(beatTimes(1, [0.2, 0.4, 0.6, 0.8])).toEqual([0.2, 0.4, 0.6, 0.8]);
  });
});

describe('local video enhancer: audio, brand, composition', () => {
  const SOUND = /\baudio\b|\bmusic\b|foley|ambience|room tone|soundtrack|piano/i;

  it('adds audio cues only with enableAudio', () => {
    const off = run({ brand: LUXE, durationSeconds: 8 });
    expect(off.enhancedPrompt).not.toMatch(SOUND);
    const on = run({ brand: LUXE, durationSeconds: 8, enableAudio: true });
    expect(on.enhancedPrompt).toMatch(
      /Audio: a calm, spa-like room tone with a faint trickle of water, a light glass clink and a slow, understated piano with soft strings to match the brand's tone; a soft musical accent at ~6 s as the camera move settles\./,
    );
    expect(codes(off)).not.toContain('AUDIO_CUES_IGNORED');
  });

  it('keeps the music the user describes or excludes, and stays silent when asked', () => {
    const theirs = run({ enableAudio: true, originalPrompt: 'Our serum with a jazzy soundtrack', brand: LUXE });
    expect(theirs.enhancedPrompt).toMatch(/the music as described/);
    expect(theirs.enhancedPrompt).not.toMatch(/piano/);
    const none = run({ enableAudio: true, originalPrompt: 'Our serum by the sea, no music' });
    expect(none.enhancedPrompt).toMatch(/Audio: gentle waves and a light sea breeze, a light glass clink; the foley/);
    expect(added(run({ enableAudio: true, originalPrompt: 'Our serum, silent' }), 'Our serum, silent')).not.toMatch(
      SOUND,
    );
  });

  it('warns AUDIO_CUES_IGNORED when the prompt describes sound and audio is off', () => {
    const r = run({ originalPrompt: 'Our serum with upbeat music and a voiceover' });
    expect(codes(r)).toEqual(['AUDIO_CUES_IGNORED']);
    expect(r.enhancedPrompt.startsWith('Our serum with upbeat music and a voiceover.')).toBe(true);
    expect(codes(run({ originalPrompt: 'Our serum, no music' }))).toEqual([]);
    expect(codes(run({ originalPrompt: 'Our serum with music', enableAudio: true }))).toEqual([]);
  });

  it('uses the brand tone and palette only with a brand, as colour words', () => {
    const BRAND = /refined|elegant|luxurious|navy|gold|palette|Brand look/i;
    const without = run({ durationSeconds: 8, enableAudio: true });
    expect(without.enhancedPrompt).not.toMatch(BRAND);
    const withBrand = run({ durationSeconds: 8, brand: LUXE });
    expect(withBrand.enhancedPrompt).toMatch(
      /Brand look: refined and elegant, true to the brand's luxurious tone, with warm imagery; a palette of navy and gold carried through the colour grade/,
    );
    expect(withBrand.enhancedPrompt).not.toMatch(/#[0-9a-f]{3,6}\b/i);
    expect(withBrand.enhancedPrompt).toMatch(/Slow, unhurried orbit around the serum/);
  });

  it('never adds a word the brand avoids, keeps the user’s and warns', () => {
    const brand: SceneBrandContext = {
      ...LUXE,
      wordsToAvoid: ['cheap', 'slow', 'refined', 'navy', 'glass', 'serum', 'camera'],
    };
    const prompt = 'Our cheap serum on a glass shelf';
    const r = run({ originalPrompt: prompt, brand, enableAudio: true, durationSeconds: 10 });
    expect(r.enhancedPrompt.startsWith(`${prompt}.`)).toBe(true);
    const ours = added(r, prompt);
    for (const w of brand.wordsToAvoid!)
      expect({ w, ours }).toEqual({ w, ours: expect.not.stringMatching(new RegExp(`\\b${w}\\b`, 'i')) });
    expect(ours).toMatch(/gold/);
    expect(codes(r)).toContain('BRAND_WORD_AVOIDED');
    expect(r.warnings.find((w) => w.code === 'BRAND_WORD_AVOIDED')?.message).toMatch(/"cheap", "glass" and "serum"/);
    expect(chooseCameraMove(r.enhancedPrompt, 0).move).toBe(r.camera);
  });

  it('never introduces an avoided word (property)', () => {
    const pool = [
      'slow',
      'gentle',
      'refined',
      'elegant',
      'navy',
      'gold',
      'warm',
      'audio',
      'soft',
      'light',
      'frame',
      'serum',
      'subject',
      'glass',
      'piano',
      'hold',
      'dissolve',
      'camera',
    ];
    fc.assert(
      fc.property(
        fc.subarray(pool),
        fc.integer({ min: 1, max: 30 }),
        fc.boolean(),
        fc.integer({ min: 0, max: 3 }),
        (avoid, dur, audio, k) => {
          const prompt = 'A bottle on a shelf';
          const r = run({
            originalPrompt: prompt,
            brand: { ...LUXE, wordsToAvoid: avoid },
            durationSeconds: dur,
            enableAudio: audio,
            intermediate: Array.from({ length: k }, (_, i) => ({
              description: `frame ${i} with soft serum`,
              tags: [],
              colors: [],
            })),
          });
          const ours = added(r, prompt);
          for (const w of avoid) expect(new RegExp(`(?<![\\p{L}])${w}(?![\\p{L}])`, 'iu').test(ours)).toBe(false);
          expect(chooseCameraMove(r.enhancedPrompt, 0).move).toBe(r.camera);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('frames for the aspect ratio', () => {
    const wide = run().enhancedPrompt;
    const tall = run({ aspectRatio: '9:16' }).enhancedPrompt;
    expect(wide).toMatch(/widescreen 16:9 framing, the serum placed on a third/);
    expect(wide).not.toMatch(/vertical 9:16|9:16|mobile/);
    expect(tall).toMatch(/vertical 9:16 framing for mobile screens/);
    expect(tall).not.toMatch(/widescreen|16:9/);
  });

  it('warns HARDSPEC_ASPECT_MISMATCH for a shape the ratio contradicts', () => {
    expect(codes(run({ originalPrompt: 'Our serum for a TikTok reel' }))).toEqual(['HARDSPEC_ASPECT_MISMATCH']);
    expect(codes(run({ originalPrompt: 'Our serum for a TikTok reel', aspectRatio: '9:16' }))).toEqual([]);
    expect(codes(run({ originalPrompt: 'Our serum, 16:9', aspectRatio: '9:16' }))).toEqual([
      'HARDSPEC_ASPECT_MISMATCH',
    ]);
  });
});

describe('local video enhancer: subject, references, bounds', () => {
  it('keeps the prompt whole and first, and names the start frame', () => {
    const prompt = 'our new vitamin C serum on a marble shelf\n\nsoft   morning light';
    const r = run({ originalPrompt: prompt });
    expect(r.enhancedPrompt.startsWith('Our new vitamin C serum on a marble shelf soft morning light. ')).toBe(true);
    expect(r.enhancedPrompt).toMatch(
      /Subject: the vitamin C face serum in an amber glass dropper bottle, exactly as pictured in the start frame/,
    );
    expect(r.enhancedPrompt).not.toMatch(/white background/);
    expect(r.enhancedPrompt).toMatch(/orange and white tones/);
    expect(codes(r)).toEqual([]);
  });

  it('writes video-model-8 around the references and warns NO_FRAME_CONTEXT without any', () => {
    const r = run({
      model: 'video-model-8',
      maxChars: 5000,
      start: undefined,
      aspectRatio: '9:16',
      referenceImages: [
        { description: 'Canvas tote bag with leather handles', tags: ['tote bag'], colors: ['beige'] },
        { tags: ['lemon grove'], colors: ['green'], fileName: 'grove.jpg' },
      ],
      referenceVideos: [{ description: 'Handheld walk through an orchard', tags: [], colors: [], durationSeconds: 6 }],
    });
    expect(r.enhancedPrompt).toMatch(/Subject: exactly as shown in the reference images/);
    expect(r.enhancedPrompt).toMatch(
      /Reference image 1: the canvas tote bag with leather handles\. Reference image 2: the green lemon grove\./,
    );
    expect(r.enhancedPrompt).toMatch(/Reference clip 1 \(6 s\): the handheld walk through an orchard/);
    expect(codes(r)).toEqual([]);
    const bare = run({ start: undefined });
    expect(codes(bare)).toEqual(['NO_FRAME_CONTEXT']);
    expect(bare.warnings[0]!.field).toBe('startFrameAssetId');
    expect(bare.enhancedPrompt).toMatch(/Subject: as the prompt describes/);
    const m8 = run({ start: undefined, model: 'video-model-8', referenceImages: [{ tags: [], colors: [] }] });
    expect(m8.warnings[0]).toMatchObject({ code: 'NO_FRAME_CONTEXT', field: 'referenceImageAssetIds' });
  });

  it('is deterministic', () => {
    const i = input({ brand: LUXE, enableAudio: true, durationSeconds: 12, intermediate: [SERUM], end: SERUM });
    expect(enhanceVideo(i)).toEqual(enhanceVideo(structuredClone(i)));
  });

  it('never exceeds maxChars, keeps the prompt whole and the camera (property, incl. 5000 for video-model-8)', async () => {
    const ref = fc.record({
      description: fc.string({ minLength: 0, maxLength: 400 }).map((s) => `${s} tote bag`),
      tags: fc.array(fc.constantFrom('bag', 'canvas', 'model', 'orchard'), { maxLength: 3 }),
      colors: fc.array(fc.constantFrom('beige', 'green'), { maxLength: 2 }),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom('video-model-8', 'optimized', 'video-model-3'),
        fc.integer({ min: 50, max: 4990 }),
        fc.array(ref, { maxLength: 30 }),
        fc.array(ref, { maxLength: 10 }),
        fc.integer({ min: 1, max: 30 }),
        fc.boolean(),
        async (model, promptLength, images, clips, dur, audio) => {
          const max = videoPromptMax(model);
          const prompt = 'A woman walks with our bag through a lemon grove. '
            .repeat(100)
            .slice(0, Math.min(promptLength, max));
          const r = await createLocalVideoEnhancer().enhance(
            input({
              model,
              maxChars: max,
              originalPrompt: prompt,
              start: model === 'video-model-8' ? undefined : SERUM,
              referenceImages: model === 'video-model-8' ? images : [],
              referenceVideos: model === 'video-model-8' ? clips : [],
              intermediate: model === 'optimized' ? images.slice(0, 5) : [],
              durationSeconds: dur,
              enableAudio: audio,
              brand: LUXE,
            }),
          );
          expect(r.enhancedPrompt.length).toBeLessThanOrEqual(max);
          expect(r.enhancedPrompt.startsWith(prompt.trim())).toBe(true);
          const read = chooseCameraMove(r.enhancedPrompt, 0);
          // The camera is named unless the prompt itself leaves no room for two words.
          if (prompt.trim().length <= max - 30) expect(read).toMatchObject({ move: r.camera, source: 'prompt' });
          if (read.source === 'prompt') expect(read.move).toBe(r.camera);
          const cut = r.warnings.find((w) => w.code === 'PROMPT_TRUNCATED');
          if (cut) expect(cut.severity).toBe('info');
        },
      ),
      { numRuns: 150 },
    );
  });

  it('uses the 5000 characters of video-model-8 for many references, dropping the last ones first', () => {
    const images = Array.from({ length: 30 }, (_, i) => ({
      description: `Reference photo number ${i + 1} of the canvas tote bag with leather handles in a sunlit lemon grove`,
      tags: [],
      colors: [],
    }));
    const prompt = 'A woman walks with our tote bag through a lemon grove. '.repeat(40).trim();
    const r = run({
      model: 'video-model-8',
      maxChars: 5000,
      start: undefined,
      referenceImages: images,
      originalPrompt: prompt,
    });
    expect(r.enhancedPrompt.length).toBeLessThanOrEqual(5000);
    expect(r.enhancedPrompt.length).toBeGreaterThan(4500);
    expect(r.enhancedPrompt).toContain('Reference image 1:');
    expect(r.enhancedPrompt).toContain('Reference image 3:');
    expect(r.enhancedPrompt).not.toContain('Reference image 30:');
    expect(r.enhancedPrompt).toMatch(/Pacing \(5 s\)/);
    expect(codes(r)).toContain('PROMPT_TRUNCATED');
    expect(r.warnings.find((w) => w.code === 'PROMPT_TRUNCATED')!.severity).toBe('info');
  });

  it('cuts a prompt that alone is over the bound (outside the API); a full prompt is kept whole', () => {
    const r = run({ originalPrompt: 'word '.repeat(700), maxChars: VIDEO_PROMPT_MAX });
    expect(r.enhancedPrompt.length).toBeLessThanOrEqual(VIDEO_PROMPT_MAX);
    expect(r.warnings.find((w) => w.code === 'PROMPT_TRUNCATED')).toMatchObject({ severity: 'warning' });
    const full = 'word '.repeat(500).trim(); // 2499 characters: room for the full stop only
    const f = run({ originalPrompt: full, maxChars: VIDEO_PROMPT_MAX });
    expect(f.enhancedPrompt).toBe(`${cap(full)}.`);
    expect(f.warnings.find((w) => w.code === 'PROMPT_TRUNCATED')?.message).toMatch(/not even the camera move/);
    const roomy = run({ originalPrompt: 'word '.repeat(495).trim(), maxChars: VIDEO_PROMPT_MAX });
    expect(chooseCameraMove(roomy.enhancedPrompt, 0)).toMatchObject({ move: roomy.camera, source: 'prompt' });
  });

  it('exports the bounds and codes', () => {
    expect(videoPromptMax('video-model-8')).toBe(VIDEO_PROMPT_MAX_REFERENCE);
    expect(videoPromptMax('optimized')).toBe(2500);
    expect(VIDEO_WARNING_CODES).toContain('CAMERA_CONFLICT');
    expect(autoCameraMove({ prompt: '', scan: '', durationSeconds: 5, aspectRatio: '16:9', keyed: false })).toBe(
      'push-in',
    );
  });
});

describe('local video enhancer: wording', () => {
  /** The API's example: a start frame known by its file name and colour, an end frame by nothing. */
  const CAP = 'the red cap turning slowly on a table';
  const capInput = (over: Partial<VideoEnhancementInput> = {}) =>
    input({
      originalPrompt: CAP,
      durationSeconds: 8,
      enableAudio: true,
      maxChars: 1000,
      start: { tags: [], colors: ['red'], fileName: 'cap.png' },
      end: { tags: [], colors: ['red'], fileName: 'end.jpg' },
      ...over,
    });
  const count = (text: string, re: RegExp) => text.match(new RegExp(re, 'g'))?.length ?? 0;

  it('reuses the user’s noun phrase once, colours before the noun, then a short reference', () => {
    const r = enhanceVideo(capInput());
    const ours = added(r, CAP);
    expect(r.enhancedPrompt).not.toMatch(/cap in red|in red\b/);
    expect(ours).toMatch(/Subject: the red cap, exactly as pictured in the start frame/);
    expect(count(ours, /the red cap/)).toBe(1);
    expect(count(ours, /the cap\b/)).toBeGreaterThanOrEqual(2);
    // A frame named by its file name alone: its colours go before the noun.
    const named = enhanceVideo(capInput({ originalPrompt: 'On a wooden table, soft light' }));
    expect(named.enhancedPrompt).toMatch(/Subject: the red cap, exactly as pictured/);
    expect(named.enhancedPrompt).not.toMatch(/cap in red/);
    // The user's bare noun takes the frame's colour; their own adjectives are kept as written.
    const bare = enhanceVideo(
      capInput({ originalPrompt: 'A cap on a wooden table', start: { tags: [], colors: ['red'] } }),
    );
    expect(bare.enhancedPrompt).toMatch(/Subject: the red cap, exactly as pictured/);
    const theirs = enhanceVideo(capInput({ originalPrompt: 'Our vintage wool cap on a wooden table' }));
    expect(theirs.enhancedPrompt).toMatch(/Subject: the vintage wool cap, exactly as pictured/);
    // A description still says more than the user's words.
    expect(run().enhancedPrompt).toMatch(/Subject: the vitamin C face serum in an amber glass dropper bottle/);
  });

  it('refers to a set in the plural ("the mugs", their shapes), and a file name’s colour before its noun', () => {
    const set = { tags: ['transparent-background'], colors: ['red', 'black'], fileName: 'solidus_mug_set.png' };
    const r = run({ originalPrompt: 'our mug set on a table', start: set, durationSeconds: 8 });
    const ours = added(r, 'our mug set on a table');
    expect(ours).toMatch(/^ Slow orbit around the mugs: .* the mugs kept centred\./);
    expect(ours).toContain('Subject: the red and black solidus mug set, exactly as pictured in the start frame');
    expect(ours).toContain('shapes, proportions, colours, labels and textures unchanged');
    expect(ours).toMatch(/holds on the mugs in their final framing/);
    expect(ours).not.toMatch(/\bthe mug\b(?! set)/);
    const red = enhanceVideo(
      capInput({
        originalPrompt: 'On a wooden table',
        start: { tags: [], colors: ['red'], fileName: 'cap_red_1.png' },
      }),
    );
    expect(red.enhancedPrompt).toMatch(/Subject: the red cap, exactly as pictured/);
    expect(red.enhancedPrompt).not.toMatch(/cap red/);
  });

  it('keeps the frame’s product the subject when the prompt names another (MULTIPLE_HEROES)', () => {
    const tee = { tags: [], colors: ['black'], fileName: 'solidus_tshirt.png' };
    const r = enhanceVideo(capInput({ start: tee }));
    const ours = added(r, CAP);
    expect(ours).toContain('Subject: the black solidus T-shirt, exactly as pictured in the start frame');
    expect(ours).toContain('The red cap stays secondary: smaller, further back and out of the main focus.');
    expect(ours).not.toMatch(/\bthe cap\b|keeps turning/);
    expect(r.warnings).toContainEqual(
      expect.objectContaining({ code: 'MULTIPLE_HEROES', severity: 'warning', field: 'startFrameAssetId' }),
    );
    // Its own kind in other colours: no warning, and none of the frame's colours said against the prompt's.
    const black = enhanceVideo(capInput({ start: { tags: [], colors: ['black'], fileName: 'cap_black.png' } }));
    expect(codes(black)).not.toContain('MULTIPLE_HEROES');
    expect(added(black, CAP)).not.toMatch(/black/);
  });

  it('never makes a subject of a file name that means nothing', () => {
    const names = ['end.jpg', 'start.png', 'frame1.png', 'image.png', 'IMG_1234.jpg', 'middle.png', 'ref.mp4'];
    const more = ['untitled', '3f2a9c1e-7b4d-4e2a-9f1c-2b3c4d5e6f70.png', '20240101.jpg', 'PXL_20230101_123456.jpg'];
    for (const fileName of [...names, ...more]) {
      expect({ fileName, words: meaningfulFileName(fileName) }).toEqual({ fileName, words: undefined });
      const frame = { tags: [], colors: ['red'], fileName };
      const r = run({
        originalPrompt: 'On a wooden table',
        model: 'optimized',
        durationSeconds: 10,
        start: frame,
        intermediate: [frame],
        end: frame,
        referenceVideos: [{ tags: [], colors: [], fileName }],
      });
      expect(r.enhancedPrompt).not.toMatch(
        /the (?:end|start|image|img|middle|ref|untitled|product)\b(?! frame)|\bframe1|\bin red\b|[0-9a-f]{8}|1234|2024/i,
      );
      expect(r.enhancedPrompt).toMatch(/dissolve smoothly into the next frame \(/);
      expect(r.enhancedPrompt).toMatch(/carry through to the end frame and land on it at 10 s/);
      expect(r.enhancedPrompt).toMatch(/Reference clip 1 — take its motion/);
      expect(codes(r)).toEqual([]); // colours are still something to go by
    }
    expect(enhanceVideo(capInput()).enhancedPrompt).toMatch(/final 2 s \(6–8 s\), land on the end frame and hold\./);
    expect(meaningfulFileName('Red-Cap_v2.png')).toBe('red cap');
    expect(meaningfulFileName('end_cap-final.jpg')).toBe('cap');
    // A frame with a name that means something is still named.
    const r = run({ durationSeconds: 10, end: { tags: [], colors: [], fileName: 'cap-side-view.jpg' } });
    expect(r.enhancedPrompt).toMatch(/land on the end frame — the cap side view — and hold/);
  });

  it('follows the subject’s own motion: the camera circles it or stays still, and the beats say it', () => {
    const r = enhanceVideo(capInput());
    expect(r.camera).toBe('orbit');
    expect(chooseCameraMove(r.enhancedPrompt, 0)).toMatchObject({ move: 'orbit', source: 'prompt' });
    expect(r.enhancedPrompt).toMatch(/2–6 s, the cap keeps turning slowly as the camera circles/);
    expect(r.enhancedPrompt).not.toMatch(/forward dolly|continues at an even speed|placed on a third/);
    // Short clips keep the camera still; the subject still turns.
    const short = enhanceVideo(capInput({ durationSeconds: 3, end: undefined }));
    expect(short.camera).toBe('static');
    expect(short.enhancedPrompt).toMatch(/open on the cap as in the start frame, turning slowly,/);
    const five = enhanceVideo(capInput({ durationSeconds: 5, originalPrompt: 'The cap spins gently on a table' }));
    expect(five.camera).toBe('orbit');
    expect(five.enhancedPrompt).toMatch(/0–4 s, open on the cap as in the start frame, already spinning gently,/);
    // The user's own move is kept, and the subject's motion is described with it.
    const pushed = enhanceVideo(capInput({ originalPrompt: 'Slow push in on the red cap rotating on a table' }));
    expect(pushed.camera).toBe('push-in');
    expect(pushed.enhancedPrompt).toMatch(/the cap keeps rotating as the camera move continues at an even speed/);
    expect([...new Set(cameraMovesIn(pushed.enhancedPrompt).map((m) => m.move))]).toEqual(['push-in']);
    // Without an action, the generic middle beat; a negated one is no action.
    const none = enhanceVideo(capInput({ originalPrompt: 'The red cap on a table, not spinning' }));
    expect(none.enhancedPrompt).not.toMatch(/keeps spinning/);
    expect(none.camera).not.toBe('orbit');
  });

  it('keeps audio only with enableAudio, and the brand before composition and finish within 1000 characters', () => {
    const brand = { ...LUXE, wordsToAvoid: ['cheap'] };
    for (const enableAudio of [true, false]) {
      for (const durationSeconds of [3, 5, 8, 10, 15]) {
        const r = enhanceVideo(capInput({ brand, enableAudio, durationSeconds }));
        expect(r.enhancedPrompt.length).toBeLessThanOrEqual(1000);
        expect(r.enhancedPrompt).toMatch(/Brand look: [^.]*navy and gold/);
        expect(r.enhancedPrompt).toMatch(/Pacing \(/);
        expect(/Audio:/.test(r.enhancedPrompt)).toBe(enableAudio);
        // Finish goes first, then composition; the brand stays.
        if (!/Composition:/.test(r.enhancedPrompt)) expect(r.enhancedPrompt).not.toMatch(/Finish:/);
      }
    }
    const roomy = enhanceVideo(capInput({ brand, maxChars: 2500 }));
    expect(roomy.enhancedPrompt).toMatch(/Composition: widescreen 16:9 framing, the cap centred with even space/);
    expect(roomy.enhancedPrompt).toMatch(/Finish:/);
  });

  it('words the same input the same way (deterministic, frames as the API gives them)', () => {
    const i = capInput({ brand: LUXE });
    expect(enhanceVideo(i)).toEqual(enhanceVideo(structuredClone(i)));
  });
});

describe('frames Atelier generated', () => {
  it('never names the subject after our own tags or file names, and keeps the user’s word for it', () => {
    const base = {
      aspectRatio: '16:9' as const,
      model: 'video-model-7',
      durationSeconds: 5,
      enableAudio: false,
      maxChars: 1000,
      intermediate: [],
      referenceImages: [],
      referenceVideos: [],
    };
    const generated = {
      tags: ['generated', 'scene', 'red', 'white'],
      colors: ['red', 'white'],
      fileName: 'scene-f0132a06-1.png',
    };
    const mugs = enhanceVideo({
      ...base,
      originalPrompt: 'the mugs, steam rising',
      start: { ...generated, description: 'A red and a black ceramic mug stacked on a marble counter' },
    }).enhancedPrompt;
    expect(mugs).toContain('push-in toward the mugs');
    const bare = enhanceVideo({ ...base, originalPrompt: 'slow reveal', start: generated }).enhancedPrompt;
    expect(bare).not.toMatch(/\bthe (?:red |white )?(?:generated|scene)\b/);
  });
});
