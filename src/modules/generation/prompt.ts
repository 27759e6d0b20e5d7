import { nameColor } from '../../adapters/media/colors.ts';
import type { GenerationInputs } from './inputs.ts';

/** Longest prompt an engine receives: the submitted 2500 characters plus the brand cues. */
export const ENGINE_PROMPT_MAX = 3000;

/** `#rrggbb` as the nearest plain colour word (`red`, `navy`...), or its DNA name when it has one. */
export function colorWord(c: { hex: string; name?: string | undefined }): string {
  if (c.name) return c.name.toLowerCase();
  const n = Number.parseInt(c.hex.slice(1), 16);
  return nameColor((n >> 16) & 255, (n >> 8) & 255, n & 255);
}

/** The brand's palette as distinct colour words, strongest first. */
export function paletteWords(inputs: Pick<GenerationInputs, 'dna'>, max = 4): string[] {
  const words = (inputs.dna?.palette ?? []).map(colorWord);
  return [...new Set(words)].slice(0, max);
}

/**
 * The prompt an engine receives for a scene: the submitted text as it is when it is an accepted
 * enhancement (which already carries the brand), otherwise the text followed by the cues of the
 * brand's active DNA that it does not already mention (palette words, tone, imagery style).
 * Without Brand DNA the text is used unchanged. Pure and deterministic.
 */
export function conditionPrompt(text: string, inputs: Pick<GenerationInputs, 'dna'>, alreadyEnhanced: boolean): string {
  const trimmed = text.trim();
  if (alreadyEnhanced || !inputs.dna) return trimmed;
  const lower = trimmed.toLowerCase();
  const fresh = (w: string) => !lower.includes(w.toLowerCase());
  const cues: string[] = [];
  const colors = paletteWords(inputs).filter(fresh);
  if (colors.length) cues.push(`brand colour accents in ${joinWords(colors)}`);
  const tone = inputs.dna.tone
    .slice(0, 2)
    .map((t) => t.toLowerCase())
    .filter(fresh);
  if (tone.length) cues.push(`${joinWords(tone)} mood`);
  const style = inputs.dna.imageryStyle.slice(0, 3).filter(fresh);
  if (style.length) cues.push(`${joinWords(style)} imagery`);
  if (cues.length === 0) return trimmed;
  const out = `${trimmed.replace(/[.\s]+$/u, '')}. ${capitalize(cues.join('; '))}.`;
  return out.length <= ENGINE_PROMPT_MAX ? out : trimmed;
}

function joinWords(words: string[]): string {
  if (words.length <= 1) return words.join('');
  return `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}

const capitalize = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
