import type { Element } from 'domhandler';
import { srcsetRenditions } from './discovery-images.ts';
import { type Ctx, type DiscoveryWalk, MAX_INLINE_BYTES } from './discovery-types.ts';
import { hash, insideDefinitions, toInt } from './discovery-util.ts';
import { resolveHttpUrl } from './urls.ts';

/**
 * `<link>` icons (`icon`, `apple-touch-icon`, `mask-icon`), `image_src` and image preloads, and
 * inline `<svg>` elements (kept with their markup for rasterising).
 */
export function visitLink(d: DiscoveryWalk, el: Element, ctx: Ctx): void {
  const a = el.attribs;
  const rel = (a.rel ?? '').toLowerCase().split(/\s+/);
  if (a.itemprop && /\bimage\b/i.test(a.itemprop) && a.href) {
    d.addUrlSighting(a.href, { source: 'itemprop', el, ctx }, ctx.productScope);
    return;
  }
  const size = parseIconSizes(a.sizes);
  if (rel.includes('apple-touch-icon') || rel.includes('apple-touch-icon-precomposed')) {
    d.addUrlSighting(a.href, {
      source: 'apple-touch-icon',
      tokens: ['icon'],
      width: size ?? 180,
      height: size ?? 180,
    });
  } else if (rel.includes('mask-icon')) {
    d.addUrlSighting(a.href, { source: 'mask-icon', tokens: ['icon'] });
  } else if (rel.includes('icon')) {
    d.addUrlSighting(a.href, { source: 'icon', tokens: ['icon'], width: size, height: size });
  } else if (rel.includes('image_src')) {
    d.addUrlSighting(a.href, { source: 'og:image' });
  } else if (rel.includes('preload') && a.as === 'image') {
    const renditions = srcsetRenditions(d.base, a.imagesrcset, 'preload');
    const href = resolveHttpUrl(a.href, d.base);
    if (href) renditions.push({ url: href, source: 'preload' });
    d.addSighting({ source: 'preload', renditions });
  }
}

export function visitSvg(d: DiscoveryWalk, el: Element, ctx: Ctx): void {
  const $el = d.$(el);
  // Sprite sheets (<symbol>/<defs> only) and bare <use> references draw nothing on their own.
  const draws = $el
    .find('path, rect, circle, ellipse, polygon, polyline, line, text, image')
    .toArray()
    .some((node) => !insideDefinitions(node, el));
  if (!draws) {
    d.stats.inlineSvgsSkipped++;
    return;
  }
  const markup = d.$.html(el);
  if (markup.length > MAX_INLINE_BYTES) {
    d.stats.inlineSvgsSkipped++;
    return;
  }
  const a = el.attribs;
  const view = (a.viewbox ?? '')
    .trim()
    .split(/[\s,]+/)
    .map(Number);
  const width = toInt(a.width) ?? (view.length === 4 && view[2]! > 0 ? Math.round(view[2]!) : undefined);
  const height = toInt(a.height) ?? (view.length === 4 && view[3]! > 0 ? Math.round(view[3]!) : undefined);
  const key = `inline-svg:${hash(markup)}`;
  const draft = d.draftFor(key, () => ({ type: 'inline-svg', svgMarkup: markup }));
  d.merge(draft, {
    source: 'inline-svg',
    renditions: [],
    width,
    height,
    el,
    ctx,
    texts: [a['aria-label'], $el.children('title').first().text(), ctx.linkTitle],
    context: [ctx.caption],
  });
}

/** `sizes="32x32 16x16"` → the largest side; `any` → undefined. */
function parseIconSizes(sizes: string | undefined): number | undefined {
  if (!sizes) return undefined;
  let best: number | undefined;
  for (const m of sizes.matchAll(/(\d+)x(\d+)/gi)) {
    const n = Math.max(Number(m[1]), Number(m[2]));
    if (n > 0 && n > (best ?? 0)) best = n;
  }
  return best;
}
