import type { Element } from 'domhandler';
import { inlineStyleImageRefs } from './css-images.ts';
import type { Ctx, DiscoveryWalk, RawRendition, Sighting, SourceKind } from './discovery-types.ts';
import { IMAGE_EXT, styleSize, toInt } from './discovery-util.ts';
import { parseJsonLoose } from './discovery-json-ld.ts';
import { microdataLogo } from './discovery-meta.ts';
import { isPlaceholderUrl, parseSrcset, resolveHttpUrl, urlSizeHint } from './urls.ts';

/**
 * `<img>` with `srcset`, `<picture>` sources, lazy-loading and zoom attributes, links to the
 * image file, `<video poster>`, inline `style` backgrounds and `data-bg` attributes on any element.
 */

export const LAZY_ATTRS = [
  'data-src',
  'data-lazy-src',
  'data-original',
  'data-lazy',
  'data-echo',
  'data-url',
  'data-img-src',
  'data-image-src',
  'data-defer-src',
  'data-lazyload',
  'data-original-src',
  'data-actualsrc',
  'data-nimg',
];
export const LAZY_SRCSET_ATTRS = ['data-srcset', 'data-lazy-srcset', 'data-original-set'];
export const ZOOM_ATTRS = [
  'data-zoom-image',
  'data-zoom',
  'data-zoom-src',
  'data-large-image',
  'data-large_image',
  'data-large',
  'data-full',
  'data-full-src',
  'data-full-image',
  'data-hires',
  'data-old-hires',
  'data-highres',
  'data-big',
  'data-image-zoom',
  'data-magnify-src',
];
export const BG_ATTRS = ['data-bg', 'data-background', 'data-background-image', 'data-bg-src'];

/**
 * `<video poster>`: the picture a video shows before it plays. On a page whose main media is a
 * video it is the main picture, so the poster is marked as a main-image candidate.
 */
export function visitVideo(d: DiscoveryWalk, el: Element, ctx: Ctx): void {
  const a = el.attribs;
  if (!a.poster) return;
  const draft = d.addUrlSighting(a.poster, { source: 'video-poster', el, ctx, texts: [a.title, a['aria-label']] });
  if (draft?.candidate.type === 'url') d.page.videoPosters.push(draft.candidate.url);
}

/** Pictures any element may carry: inline `style` backgrounds, `data-bg`, lazy and zoom attributes, `itemprop=image`. */
export function visitElementImages(d: DiscoveryWalk, el: Element, name: string, ctx: Ctx): void {
  const a = el.attribs;
  if (a.style) {
    for (const ref of inlineStyleImageRefs(a.style)) {
      d.addUrlSighting(ref.url, { source: 'inline-style', el, ctx, texts: [a.title, a['aria-label']] });
    }
  }
  for (const attr of BG_ATTRS) {
    if (a[attr]) d.addUrlSighting(a[attr], { source: 'lazy-background', el, ctx, texts: [a.title, a['aria-label']] });
  }
  if (a.itemprop && /\blogo\b/i.test(a.itemprop) && name !== 'meta') {
    const v = a.content ?? a.src ?? a.href;
    // A link's value is its href: a logo only when it points at an image file.
    if (v && (name !== 'a' || IMAGE_EXT.test(v))) {
      microdataLogo(d, v, el, ctx);
    }
  }
  if (name !== 'img') {
    // Lazy and zoom attributes on wrappers (<a data-zoom-image>, <div data-src="x.jpg">).
    for (const attr of [...ZOOM_ATTRS, ...LAZY_ATTRS]) {
      const v = a[attr];
      if (v && IMAGE_EXT.test(v)) {
        d.addUrlSighting(v, { source: ZOOM_ATTRS.includes(attr) ? 'zoom' : 'lazy', el, ctx, texts: [a.title] });
      }
    }
    if (a.itemprop && /\bimage\b/i.test(a.itemprop)) {
      const v = a.content ?? a.src ?? a.href;
      if (v) d.addUrlSighting(v, { source: 'itemprop', el, ctx }, ctx.productScope);
    }
  }
}

export function visitImg(d: DiscoveryWalk, el: Element, ctx: Ctx): void {
  const a = el.attribs;
  const renditions: RawRendition[] = [];
  const lazy: RawRendition[] = [];
  for (const attr of LAZY_ATTRS) {
    const url = resolveHttpUrl(a[attr], d.base);
    if (url) lazy.push({ url, source: 'lazy' });
  }
  for (const attr of LAZY_SRCSET_ATTRS) lazy.push(...srcsetRenditions(d.base, a[attr], 'lazy'));
  const zoom: RawRendition[] = [];
  for (const attr of ZOOM_ATTRS) {
    const url = resolveHttpUrl(a[attr], d.base);
    if (url) zoom.push({ url, source: 'zoom' });
  }
  if (ctx.imageLink) zoom.push({ url: ctx.imageLink, source: 'linked-image' });
  zoom.push(...dynamicImageRenditions(a['data-a-dynamic-image'], d.base));
  const srcset = srcsetRenditions(d.base, a.srcset, 'srcset');
  const parent = el.parent as Element | null;
  const inPicture = parent?.type === 'tag' && parent.name.toLowerCase() === 'picture';
  if (inPicture) {
    for (const s of parent.children) {
      if (s.type !== 'tag' || (s as Element).name.toLowerCase() !== 'source') continue;
      const sa = (s as Element).attribs;
      srcset.push(
        ...srcsetRenditions(d.base, sa.srcset, 'picture'),
        ...srcsetRenditions(d.base, sa['data-srcset'], 'picture'),
      );
    }
  }
  const src = resolveHttpUrl(a.src, d.base);
  const hasOthers = lazy.length + zoom.length + srcset.length > 0;
  if (src && !(hasOthers && isPlaceholderUrl(src))) renditions.push({ url: src, source: 'img' });
  renditions.push(...srcset, ...lazy, ...zoom);
  const displayWidth = toInt(a.width) ?? styleSize(a.style, 'width');
  const displayHeight = toInt(a.height) ?? styleSize(a.style, 'height');
  const sighting: Sighting = {
    source: 'img',
    renditions,
    displayWidth,
    displayHeight,
    el,
    ctx,
    texts: [a.alt, a.title, a['aria-label'], ctx.linkTitle],
    context: [ctx.caption, d.lastHeading],
  };
  if (renditions.length > 0) {
    d.addSighting(sighting, a.itemprop !== undefined && /\bimage\b/i.test(a.itemprop) && ctx.productScope);
  } else if (a.src && /^\s*data:/i.test(a.src)) {
    d.addDataUrl(a.src, sighting);
  }
}

export function srcsetRenditions(base: string, value: string | undefined, source: SourceKind): RawRendition[] {
  if (!value) return [];
  const out: RawRendition[] = [];
  for (const e of parseSrcset(value)) {
    const url = resolveHttpUrl(e.url, base);
    if (url) out.push({ url, source, width: e.width, density: e.density });
  }
  return out;
}

/** Picks the largest rendition: by declared width, zoom/linked files first when widths are unknown. */
export function largestRendition(
  renditions: RawRendition[],
  displayWidth: number | undefined,
): RawRendition | undefined {
  const hint = (r: RawRendition) => urlSizeHint(r.url)?.side;
  const isZoom = (r: RawRendition) => !r.width && !hint(r) && (r.source === 'zoom' || r.source === 'linked-image');
  const sizeOf = (r: RawRendition) =>
    r.width ?? (r.density ? r.density * (displayWidth ?? 100) : (hint(r) ?? displayWidth ?? 1));
  // A zoom or linked file of unknown size is taken to be larger than every other rendition.
  const largestOther = Math.max(0, ...renditions.filter((r) => !isZoom(r)).map(sizeOf));
  let best: RawRendition | undefined;
  let bestSize = -1;
  for (const r of renditions) {
    const size = isZoom(r) ? largestOther + 1 : sizeOf(r);
    if (size > bestSize) {
      best = r;
      bestSize = size;
    }
  }
  return best;
}

/** Amazon-style `data-a-dynamic-image='{"url":[w,h],...}'`. */
function dynamicImageRenditions(value: string | undefined, base: string): RawRendition[] {
  if (!value) return [];
  const parsed = parseJsonLoose(value);
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) return [];
  const out: RawRendition[] = [];
  for (const [raw, dims] of Object.entries(parsed as Record<string, unknown>)) {
    const url = resolveHttpUrl(raw, base);
    if (!url) continue;
    const [w, h] = Array.isArray(dims) ? dims.map(Number) : [];
    out.push({ url, source: 'zoom', width: w && w > 0 ? w : undefined, height: h && h > 0 ? h : undefined });
  }
  return out;
}
