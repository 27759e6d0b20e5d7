import type { Draft } from './discovery-types.ts';
import type { SourceKind } from './discovery-types.ts';
import { normalizeImageUrl, renditionKey, renditionStem, urlSizeHint } from './urls.ts';

/** Sources that declare a picture as the page's own (its share or main image). */
const DECLARED_IMAGE_SOURCES: readonly SourceKind[] = ['og:image', 'twitter:image', 'json-ld-image', 'json-ld-product'];

/**
 * Folds renditions of one picture into one candidate, keeping the largest as the candidate:
 * (1) a candidate whose URL is a smaller rendition of exactly one other (an og:image that is
 * the 400 px entry of a gallery `srcset`); (2) candidates whose URLs differ only in rendition
 * parameters (`x.jpg` and `x.jpg?f=g&w=1600`); (3) a declared share/main image and the other
 * renditions of it the page shows (`photo-300x200.jpg` declared, `photo.jpg` in the article): one
 * candidate with the declaration's evidence, whose URL is the best-quality rendition.
 */
export function mergeRenditions(drafts: Map<string, Draft>): void {
  const owners = new Map<string, string[]>();
  for (const [key, d] of drafts) {
    for (const alt of d.alternates.keys()) {
      const list = owners.get(alt);
      if (list) list.push(key);
      else owners.set(alt, [key]);
    }
  }
  for (const [alt, keys] of owners) {
    const distinct = [...new Set(keys)];
    if (distinct.length !== 1) continue;
    const child = drafts.get(alt);
    const owner = drafts.get(distinct[0]!);
    if (!child || !owner || child === owner || child.alternates.size > 0) continue;
    absorb(drafts, owner, alt, child);
  }
  for (const keys of urlGroups(drafts, renditionKey)) {
    mergeIntoLargest(
      drafts,
      keys,
      (c) => c.evidence.width ?? (c.type === 'url' ? urlSizeHint(c.url)?.side : undefined) ?? 0,
    );
  }
  mergeDeclaredRenditions(drafts);
}

/** The keys of the URL candidates that share `keyOf(url)`, in groups of two or more. */
function urlGroups(drafts: Map<string, Draft>, keyOf: (url: string) => string): string[][] {
  const groups = new Map<string, string[]>();
  for (const [key, d] of drafts) {
    if (d.candidate.type !== 'url') continue;
    const group = keyOf(d.candidate.url);
    const list = groups.get(group);
    if (list) list.push(key);
    else groups.set(group, [key]);
  }
  return [...groups.values()].filter((keys) => keys.length >= 2);
}

/** Merges a group of renditions into its largest by `size` (the first of equals). */
function mergeIntoLargest(drafts: Map<string, Draft>, keys: string[], size: (c: Draft['candidate']) => number): void {
  const sizeOf = (key: string) => size(drafts.get(key)!.candidate);
  const [ownerKey, ...rest] = [...keys].sort((a, b) => sizeOf(b) - sizeOf(a));
  const owner = drafts.get(ownerKey!)!;
  for (const key of rest) absorb(drafts, owner, key, drafts.get(key)!);
}

/**
 * Moves `child`'s evidence into `owner`; the child's URL becomes one of owner's alternates.
 * Sizes stay the owner's: the child's describe a smaller rendition.
 */
function absorb(drafts: Map<string, Draft>, owner: Draft, childKey: string, child: Draft): void {
  const ce = child.candidate.evidence;
  const oe = owner.candidate.evidence;
  oe.occurrences += ce.occurrences;
  for (const s of child.sources) owner.sources.add(s);
  for (const t of child.texts) owner.texts.add(t);
  for (const t of child.tokens) owner.tokens.add(t);
  for (const t of child.contextTokens) owner.contextTokens.add(t);
  for (const t of child.context) owner.context.add(t);
  for (const r of child.regions) owner.regions.add(r);
  if (child.everVisible) owner.everVisible = true;
  if (ce.domIndex !== undefined && (oe.domIndex === undefined || ce.domIndex < oe.domIndex)) oe.domIndex = ce.domIndex;
  oe.inHomeLink ||= ce.inHomeLink;
  if (ce.inSiteLink) oe.inSiteLink = true;
  if (ce.inExternalLink) oe.inExternalLink = true;
  if (ce.productBrandLogo) oe.productBrandLogo = true;
  for (const el of child.elements) if (!owner.elements.includes(el)) owner.elements.push(el);
  oe.inProductScope ||= ce.inProductScope;
  oe.main.microdataProduct ||= ce.main.microdataProduct;
  if (child.candidate.type === 'url') {
    const existing = owner.alternates.get(childKey);
    const width = existing?.width ?? ce.width;
    owner.alternates.set(childKey, width ? { url: child.candidate.url, width } : { url: child.candidate.url });
  }
  for (const [k, r] of child.alternates) if (!owner.alternates.has(k)) owner.alternates.set(k, r);
  if (owner.candidate.type === 'url') owner.alternates.delete(normalizeImageUrl(owner.candidate.url));
  drafts.delete(childKey);
}

/** Step (3) of `mergeRenditions`: renditions of a declared image, by `renditionStem`. */
function mergeDeclaredRenditions(drafts: Map<string, Draft>): void {
  for (const keys of urlGroups(drafts, renditionStem)) {
    if (!keys.some((k) => [...drafts.get(k)!.sources].some((s) => DECLARED_IMAGE_SOURCES.includes(s)))) continue;
    // Best quality: the largest declared or URL-given size; a URL without any size marker is the
    // original file, larger than its sized copies.
    mergeIntoLargest(drafts, keys, (c) => {
      if (c.type !== 'url') return 0;
      const known = c.evidence.width ?? urlSizeHint(c.url)?.side;
      if (known) return known;
      return renditionStem(c.url) === renditionKey(c.url) ? 100_000 : 0;
    });
  }
}
