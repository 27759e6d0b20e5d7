import { type Static, Type } from 'typebox';
import { Compile } from 'typebox/compile';
import type { Fetcher } from '../../../adapters/fetch/fetcher.ts';
import { CAMERA_MOVES, type CameraMove, chooseCameraMove } from '../../video/camera.ts';
import { cleanText, hexToWords, usefulTags } from '../local/scene-enhancer.local.ts';
import { cameraMovesIn, videoWarnings } from '../local/video-enhancer.local.ts';
import {
  type FrameContext,
  VIDEO_CAMERA_PHRASES,
  type VideoEnhancement,
  type VideoEnhancementInput,
  type VideoEnhancer,
} from '../video-enhancer.ts';
import { type ChatEndpointSettings, TextEngineError } from './chat.ts';
import {
  bounded,
  brandJson,
  checkFaithful,
  checkNoAvoidedWords,
  colourWords,
  containsWord,
  chatEnhancer,
  unquoted,
} from './scene-enhancer.openai.ts';

/**
 * Image-to-video prompt enhancement by any OpenAI-compatible chat endpoint: POST
 * `<baseUrl>/chat/completions` with a strict JSON-schema `response_format` (./chat.ts),
 * temperature 0.2, answer `{ enhancedPrompt, camera }`. The answer is cleaned (hex codes turned
 * into colour words, whitespace normalised, surrounding quotes removed) and refused —
 * TextEngineError, so the caller falls back to the local enhancer — when it is empty, longer than
 * `maxChars`, drops most of the user's words, changes the move the user named, does not name
 * `camera` as the video engine reads it (`chooseCameraMove(enhancedPrompt).move !== camera`), adds
 * a word the brand avoids, adds sound to a silent clip, or times a beat past the clip's end. The
 * input-only warnings come from videoWarnings() (local).
 */
export interface OpenAiVideoEnhancerSettings extends ChatEndpointSettings {}

export const VideoAnswer = Type.Object(
  {
    enhancedPrompt: Type.String(),
    camera: Type.Union(CAMERA_MOVES.map((m) => Type.Literal(m))),
  },
  { additionalProperties: false },
);
type VideoAnswer = Static<typeof VideoAnswer>;
const checkVideoAnswer = Compile(VideoAnswer);

const phraseList = CAMERA_MOVES.map((m) => `${m} → "${VIDEO_CAMERA_PHRASES[m]}"`).join('; ');

export const VIDEO_SYSTEM_PROMPT = [
  'You are a video director writing the prompt an image-to-video model receives.',
  "Start with the user's prompt, whole and in their words (even a word the brand avoids: the user is told separately), then add in plain prose, in the language of the original prompt, no lists, no headings:",
  "(1) the camera: exactly one move, named once right after the user's text with its phrase from this list, with its speed and easing (eased in and out, slow, steady): " +
    `${phraseList}. If the user's text names a move, keep that move. Otherwise choose: static for clips of 3 s or less, a slow push-in for short product shots, an orbit for 3D objects, a pan (or a tilt in 9:16) for wide scenes, a dolly for people. Never use words of another move anywhere (pan, tilt, zoom, orbit, dolly, crane, jib, pedestal, tripod, turntable, 360, static) and never the bare words "pan" or "tilt".`,
  '(2) the subject from the start frame (or the reference images and clips for the reference-to-video model), kept exactly as pictured (a product the user names that the frame does not show stays secondary; a set or pack is referred to in the plural); subtle, physically plausible motion within the frame.',
  '(3) pacing beats timed to the duration, written as "0–2 s, …; 2–8 s, …; final 2 s (8–10 s), …", fewer beats for short clips, every time within the duration and the last beat ending at it; dissolves through the intermediate frames in order ("at ~3 s dissolve smoothly into …") and the landing on the end frame when there is one.',
  '(4) composition for the aspect ratio (vertical 9:16 framing for mobile, or widescreen 16:9).',
  "(5) when a brand is given, its tone as mood words and its palette as colour words (never hex codes); never any of the brand's words to avoid.",
  '(6) only when audio is enabled: ambience, foley, a music mood matching the brand tone, and a sync point with a camera beat; when audio is off, say nothing about sound.',
  '(7) brief finish cues (photorealistic, smooth motion, no flicker or warping).',
  'The whole enhancedPrompt must stay within max_chars characters. camera is the move you named.',
  'Answer with JSON only, following the schema.',
].join(' ');

export function createOpenAiCompatibleVideoEnhancer(
  settings: OpenAiVideoEnhancerSettings,
  fetcher: Fetcher,
): VideoEnhancer {
  return chatEnhancer(settings, fetcher, {
    system: VIDEO_SYSTEM_PROMPT,
    user: videoUserMessage,
    schemaName: 'image_to_video_prompt_enhancement',
    schema: VideoAnswer,
    check: checkVideoAnswer,
    result: toVideoEnhancement,
  });
}

function frameJson(f: FrameContext | undefined) {
  if (!f) return null;
  return {
    description: bounded(f.description, 500) || null,
    file_name: bounded(f.fileName, 200) || null,
    tags: usefulTags(f.tags).slice(0, 10),
    dominant_colours: colourWords(f.colors),
  };
}

/** The request as JSON: everything resolved to words (palette as colour words, no hex). */
export function videoUserMessage(input: VideoEnhancementInput): string {
  const user = cameraMovesIn(cleanText(input.originalPrompt))[0];
  return JSON.stringify({
    original_prompt: bounded(input.originalPrompt, input.maxChars),
    model: input.model,
    aspect_ratio: input.aspectRatio,
    orientation: input.aspectRatio === '9:16' ? 'vertical' : 'horizontal',
    duration_seconds: input.durationSeconds,
    audio_enabled: input.enableAudio,
    max_chars: input.maxChars,
    camera_named_by_user: user ? { move: user.move, words: user.phrase } : null,
    start_frame: frameJson(input.start),
    end_frame: frameJson(input.end),
    intermediate_frames_in_order: input.intermediate.slice(0, 10).map(frameJson),
    reference_images: input.referenceImages.slice(0, 30).map(frameJson),
    reference_clips: input.referenceVideos.slice(0, 10).map((v) => ({
      ...frameJson(v),
      duration_seconds: v.durationSeconds ?? null,
    })),
    brand: brandJson(input.brand),
  });
}

const SOUND =
  /(?<![\p{L}])(?:audio|music|musical|soundtrack|sound|sounds|foley|ambience|sfx|voice-?over|narration|song|piano|strings|melody)(?![\p{L}])/giu;
const TIMES = /(\d+(?:\.\d+)?)\s?(?:s|sec|secs|seconds)(?![\p{L}])/giu;

/** Checked enhancement from a schema-valid answer; a TextEngineError when it cannot be used. */
export function toVideoEnhancement(a: VideoAnswer, input: VideoEnhancementInput): Omit<VideoEnhancement, 'engine'> {
  const prompt = unquoted(hexToWords(a.enhancedPrompt));
  if (!prompt) throw new TextEngineError('The model answered an empty prompt');
  if (prompt.length > input.maxChars) {
    throw new TextEngineError(`The model's prompt is ${prompt.length} characters, over the ${input.maxChars} allowed`);
  }
  const camera = a.camera as CameraMove;
  if (!CAMERA_MOVES.includes(camera))
    throw new TextEngineError(`The model answered an unknown camera move "${camera}"`);
  const original = cleanText(hexToWords(input.originalPrompt));
  checkFaithful(original, prompt);
  const userMove = cameraMovesIn(original)[0]?.move;
  if (userMove && camera !== userMove) {
    throw new TextEngineError(`The model changed the user's camera move (${userMove}) to ${camera}`);
  }
  const read = chooseCameraMove(prompt, 0);
  if (read.source !== 'prompt' || read.move !== camera) {
    throw new TextEngineError(
      read.source === 'prompt'
        ? `The model's prompt names ${read.move} first ("${read.phrase}"), not its camera ${camera}`
        : `The model's prompt does not name its camera move (${camera})`,
    );
  }
  const frames = [input.start, input.end, ...input.intermediate, ...input.referenceImages, ...input.referenceVideos];
  const sources = [original, ...frames.map((f) => `${f?.description ?? ''} ${f?.tags.join(' ') ?? ''}`)]
    .join(' ')
    .toLowerCase();
  checkNoAvoidedWords(input.brand, prompt, sources);
  if (!input.enableAudio) {
    const sound = [...prompt.matchAll(SOUND)].map((m) => m[0].toLowerCase()).filter((w) => !containsWord(sources, w));
    if (sound.length) throw new TextEngineError(`The model's prompt describes sound ("${sound[0]}") but audio is off`);
  }
  const late = [...prompt.matchAll(TIMES)]
    .map((m) => Number(m[1]))
    .filter(
      (t) =>
        t > input.durationSeconds &&
        !containsWord(original, `${t}`) &&
        !input.referenceVideos.some((v) => v.durationSeconds === t),
    );
  if (late.length) {
    throw new TextEngineError(
      `The model's prompt times a beat at ${late[0]} s, past the ${input.durationSeconds} s clip`,
    );
  }
  return { enhancedPrompt: prompt, camera, warnings: videoWarnings(input) };
}
