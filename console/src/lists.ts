/** What cards and pickers show, and how fresh state merges with what the API lists (pure, unit-tested). */
import type { Asset } from '../../sdk/src/index.ts';

export interface CardTitle {
  /** A short title: the person's own prompt, else the theme, else the prompt's opening. */
  title: string;
  /** The whole prompt, when the title is not it (shown on demand). */
  full?: string;
}

const TITLE_MAX = 90;

/** `text` cut at a word boundary to at most `max` characters, with an ellipsis when cut. */
export function shorten(text: string, max = TITLE_MAX): string {
  const t = text.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  const firstSentence = /^(.{20,}?[.!?])\s/.exec(t)?.[1];
  if (firstSentence && firstSentence.length <= max) return firstSentence;
  const cut = t.slice(0, max);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}

/**
 * A generation's card title: the prompt the person typed (an enhanced prompt is ~900 characters),
 * else the theme, else the opening of the prompt; `full` holds the whole prompt when it differs.
 */
export function cardTitle(o: { prompt: string; original?: string | null; theme?: string | null }): CardTitle {
  const prompt = o.prompt.trim();
  const original = o.original?.trim();
  const title = original ? shorten(original) : o.theme?.trim() ? o.theme.trim() : shorten(prompt);
  return title === prompt ? { title } : { title, full: prompt };
}

/**
 * A tab's runs: the ones started on this page that the list does not show yet (newest first), then
 * the listed ones.
 */
export function withFresh<T>(fresh: T[], listed: T[], id: (run: T) => string): T[] {
  return [...fresh.filter((f) => !listed.some((l) => id(l) === id(f))), ...listed];
}

/** A file the server made (a scene, an environment, a video), not one the brand brought. */
export const isGenerated = (a: Pick<Asset, 'tags' | 'metadata'>) =>
  a.tags.includes('generated') || a.metadata.type === 'environment';

/** Brand DNA sources: the brand's own complete files; generated ones only when asked for, after them. */
export function dnaSources(assets: Asset[], includeGenerated: boolean): Asset[] {
  const done = assets.filter((a) => a.status === 'complete');
  const own = done.filter((a) => !isGenerated(a));
  return includeGenerated ? [...own, ...done.filter(isGenerated)] : own;
}

export interface ImportPick {
  keep: boolean;
  logo: boolean;
  /** Set once the person ticks or unticks: from then on their choice, not the API's `kept`, holds. */
  touched?: boolean;
}

/** The import picks for the latest candidates: the API's `kept` until the person changes a pick. */
export function mergePicks(
  old: Record<string, ImportPick>,
  candidates: { candidateId: string; kept: boolean }[],
): Record<string, ImportPick> {
  return Object.fromEntries(
    candidates.map((c) => {
      const o = old[c.candidateId];
      return [c.candidateId, o?.touched ? o : { keep: c.kept, logo: o?.logo ?? false }];
    }),
  );
}

/**
 * The brand's assets: the listed ones, plus the ones uploaded on this page that the list does not
 * show yet (a list read while they were being confirmed), newest first; of two copies the newer wins.
 */
export function mergeAssets(listed: Asset[], fresh: Asset[]): Asset[] {
  const byId = new Map(listed.map((a) => [a.id, a]));
  const newer = (a: Asset, b: Asset) => (a.updatedAt >= b.updatedAt ? a : b);
  const extra: Asset[] = [];
  for (const f of fresh) {
    const l = byId.get(f.id);
    if (l) byId.set(f.id, newer(l, f));
    else extra.push(f);
  }
  return [...extra.sort((a, b) => b.createdAt.localeCompare(a.createdAt)), ...listed.map((a) => byId.get(a.id)!)];
}
