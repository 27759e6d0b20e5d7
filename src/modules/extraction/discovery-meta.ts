import type { Element } from 'domhandler';
import type { Ctx, DiscoveryWalk } from './discovery-types.ts';
import { addText, pushUnique, toInt } from './discovery-util.ts';
import { cleanText } from './text.ts';

/**
 * `<meta>` tags: og:image (with its width, height and alt), twitter:image, og:logo, the Windows
 * tile image, and `itemprop` metas (`image`, `logo`) of microdata.
 */
export function visitMeta(d: DiscoveryWalk, el: Element, ctx: Ctx): void {
  const a = el.attribs;
  const key = (a.property ?? a.name ?? a.itemprop ?? '').toLowerCase().trim();
  const content = a.content;
  if (!key || content === undefined) return;
  switch (key) {
    case 'og:image':
    case 'og:image:url':
    case 'og:image:secure_url': {
      // og:image:url and :secure_url restate the og:image before them; its width/alt follow.
      const draft = d.addUrlSighting(content, { source: 'og:image' });
      if (key === 'og:image' || !d.lastOgImage) d.lastOgImage = draft;
      if (draft?.candidate.type === 'url') pushUnique(d.page.ogImages, draft.candidate.url);
      return;
    }
    case 'og:image:width':
    case 'og:image:height': {
      const n = toInt(content);
      const ev = d.lastOgImage?.candidate.evidence;
      if (ev && n) {
        if (key.endsWith('width')) ev.width = Math.max(ev.width ?? 0, n);
        else ev.height = Math.max(ev.height ?? 0, n);
      }
      return;
    }
    case 'og:image:alt':
      if (d.lastOgImage) addText(d.lastOgImage.texts, content);
      return;
    case 'og:title':
      d.ogTitle ??= cleanText(content, 200) || undefined;
      return;
    case 'og:site_name':
    case 'application-name':
      d.siteNames.push(cleanText(content, 100));
      return;
    case 'twitter:image':
    case 'twitter:image:src':
      d.addUrlSighting(content, { source: 'twitter:image' });
      return;
    case 'og:logo':
      d.addUrlSighting(content, { source: 'og:logo', tokens: ['logo'] });
      return;
    case 'msapplication-tileimage':
      d.addUrlSighting(content, { source: 'icon', tokens: ['icon'] });
      return;
    case 'image':
      if (a.itemprop) d.addUrlSighting(content, { source: 'itemprop', el, ctx }, ctx.productScope);
      return;
    case 'logo':
      if (a.itemprop) microdataLogo(d, content, el, ctx);
      return;
    case 'url':
    case 'contenturl': {
      // <div itemprop="logo" itemscope itemtype="…/ImageObject"><meta itemprop="url" content="…">
      const scope = el.parent as Element | null;
      if (a.itemprop && scope?.type === 'tag' && /\blogo\b/i.test(scope.attribs.itemprop ?? '')) {
        microdataLogo(d, content, el, ctx);
      }
      return;
    }
  }
}

/** A microdata logo: the page's own, except inside a Product's scope (the product brand's). */
export function microdataLogo(d: DiscoveryWalk, content: string, el: Element, ctx: Ctx): void {
  const draft = d.addUrlSighting(content, {
    source: ctx.productScope ? 'itemprop' : 'microdata-logo',
    el,
    ctx,
    tokens: ['logo'],
  });
  if (draft && ctx.productScope) draft.candidate.evidence.productBrandLogo = true;
}
