/**
 * What an agent reads: compact views of REST answers (an LLM's context is the budget). Pure.
 *
 * - A critique (≈ 13 KB per variation) becomes one line per score: the score, its summary and
 *   the biggest lever.
 * - Thumbnail links, pagination links and engine internals (image_intelligence, model_versions)
 *   go; asset links stay (`url`, to show the image).
 * - A long text repeated (the enhanced prompt on every variation, a link) is given once; later
 *   copies say where it is. A refinement's source variation is named by its id.
 * - In a list, each item's own lists (a forge's variations) shrink to ids, status and scores.
 *
 * Every tool takes `view: "full"` for the REST answer as it is.
 */
export const VIEWS = ['compact', 'full'] as const;
export type View = (typeof VIEWS)[number];

const DROPPED = new Set(['thumbnailUrl', 'links', 'image_intelligence', 'model_versions']);
/** Bookkeeping an agent does not act on, dropped below the top level. */
const NESTED_DROPPED = new Set(['createdAt', 'updatedAt', 'completedAt', 'startedAt', 'generation', 'critiqueStatus']);
/** An input asset (what the caller sent) is named by its id only; outputs (`asset`, `generatedAsset`) keep their link. */
const isInputAsset = (key: string) => /Assets?$/.test(key) && key !== 'generatedAsset';
/** Strings at least this long are given once per answer. */
const LONG_TEXT = 160;
/** Members an item of a nested list keeps in a list answer. */
const NESTED_KEEP = new Set(['status', 'label', 'scores', 'liked', 'disliked']);

type Json = unknown;
const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** One line per score of a critique: `{score_name, summary}` (the summary names the score and the biggest lever). */
export function critiqueSummary(critique: Json): Json {
  if (!isObject(critique) || !Array.isArray(critique.recommendations)) return critique;
  return critique.recommendations.filter(isObject).map((r) => {
    const details = isObject(r.recommendation_details) ? r.recommendation_details : {};
    const levers = Array.isArray(details.practical_recommendations) ? details.practical_recommendations : [];
    const top = levers.find(isObject);
    return {
      score_name: r.score_name,
      summary: details.display_summary ?? r.general_recommendation ?? top?.display_title,
    };
  });
}

/** The compact view of a REST answer; `list` for list answers (`{data: [...]}`). */
export function compactView(body: Json, o: { list?: boolean } = {}): Json {
  const seen = new Map<string, string>();
  // A nested id or long text that repeats the top level's (the forge id on each variation) goes.
  const top = isObject(body) ? body : {};

  function walk(value: Json, path: string, inListItem: boolean): Json {
    if (typeof value === 'string') {
      if (value.length < LONG_TEXT) return value;
      const first = seen.get(value);
      if (first !== undefined) return `(same text as ${first})`;
      seen.set(value, path);
      return value;
    }
    if (Array.isArray(value)) {
      return value.map((item, i) =>
        inListItem && isObject(item) ? nestedItem(item) : walk(item, `${path}[${i}]`, inListItem),
      );
    }
    if (!isObject(value)) return value;
    const out: Record<string, Json> = {};
    for (const [key, v] of Object.entries(value)) {
      if (DROPPED.has(key)) continue;
      if (path && (NESTED_DROPPED.has(key) || v === false || (Array.isArray(v) && v.length === 0))) continue;
      if (path && typeof v === 'string' && top[key] === v && (/Id$/.test(key) || v.length >= LONG_TEXT)) continue;
      const at = path ? `${path}.${key}` : key;
      if (key === 'critique') out[key] = critiqueSummary(v);
      else if (key === 'sourceVariation' && isObject(v) && typeof v.generatedImageId === 'string') {
        out.sourceVariationId = v.generatedImageId;
      } else if (isInputAsset(key)) out[key] = assetIds(v);
      else out[key] = walk(v, at, inListItem);
    }
    return out;
  }

  /** Input asset references as their ids. */
  function assetIds(v: Json): Json {
    if (Array.isArray(v)) return v.map(assetIds);
    return isObject(v) && typeof v.assetId === 'string' ? v.assetId : v;
  }

  /** A nested list's item inside a list answer: ids, status, scores, its asset's id. */
  function nestedItem(item: Record<string, Json>): Json {
    const out: Record<string, Json> = {};
    for (const [key, v] of Object.entries(item)) {
      if (/Id$/.test(key) || key === 'id' || NESTED_KEEP.has(key)) out[key] = v;
      else if (key === 'asset' && isObject(v) && typeof v.assetId === 'string') out.assetId = v.assetId;
    }
    return out;
  }

  if (o.list && isObject(body) && Array.isArray(body.data)) {
    const { data, ...rest } = body;
    return {
      ...(walk(rest, '', false) as Record<string, Json>),
      data: data.map((item, i) => walk(item, `data[${i}]`, true)),
    };
  }
  return walk(body, '', false);
}
