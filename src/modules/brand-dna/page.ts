import * as cheerio from 'cheerio';
import type { CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import type { TextBlock } from '../../engines/text/text-engine.ts';
import { resolveHttpUrl } from '../extraction/urls.ts';
import { discoverCandidates, linkedStylesheetUrls } from '../extraction/discovery.ts';
import { isSiteIcon, LOGO_PICK_MIN } from '../extraction/logo.ts';
import { rankCandidates } from '../extraction/ranking.ts';
import { colorsInCss } from './color.ts';
import { type CssRule, parseCss, parseInlineStyle } from './css-analysis.ts';

/**
 * What a web page says about its brand, from the markup alone: names, copy for the text engine,
 * declared theme colours, logo candidates, the colours of inline SVG logos, style sheets to fetch,
 * inline styles, web-font links, links to an about page. Pure (no fetching).
 */
export interface LogoCandidate {
  url: string;
  score: number;
}

export interface PageFacts {
  url: string;
  title?: string;
  /** og:site_name, application-name, JSON-LD Organization/WebSite name. */
  declaredNames: string[];
  /** meta theme-color, msapplication-TileColor, mask-icon colour. */
  themeColors: string[];
  /** Colours drawn in inline SVG logos (header, or marked `logo`). */
  logoSvgColors: string[];
  /** Fill and stroke colours of the other inline SVGs (icons), one entry per use. */
  iconColors: string[];
  logos: LogoCandidate[];
  /** `<style>` blocks, in order. */
  styleBlocks: string[];
  /** `style` attributes and legacy colour attributes as rules with a synthetic selector. */
  inlineRules: CssRule[];
  stylesheetUrls: string[];
  /** Google Fonts / Bunny Fonts links: families and weights. */
  webFonts: { family: string; weights: number[] }[];
  blocks: TextBlock[];
  /** Same-site links that look like an about / mission page. */
  aboutLinks: string[];
  /** img alt texts (imagery subjects). */
  imageAlts: string[];
}

const MAX_BLOCK = 2000;
const tidy = (s: string | undefined, max = MAX_BLOCK) => (s ?? '').replace(/\s+/g, ' ').trim().slice(0, max);
/** Like tidy, but keeps line breaks (a section's label and list items stay on their own lines). */
const tidyLines = (s: string, max = MAX_BLOCK) =>
  s
    .split('\n')
    .map((l) => tidy(l))
    .filter(Boolean)
    .join('\n')
    .slice(0, max);

/** Tile and mask-icon colours favicon generators write by default (not a choice of the brand). */
const GENERATOR_DEFAULTS = new Set(['#2b5797', '#5bbad5', '#da532c', '#ffffff', '#000000']);

const SECTION_KINDS = new Set<TextBlock['kind']>(['about', 'mission', 'values']);
const ABOUT_WORDS = /\b(about|mission|values|our story|purpose|who we are|philosophy|manifesto|vision)\b/i;

export function analyzePage(html: string, pageUrl: string): PageFacts {
  const $ = cheerio.load(html, { xml: { xmlMode: false, decodeEntities: true } });
  const base = resolveHttpUrl($('base[href]').first().attr('href'), pageUrl) ?? pageUrl;
  const meta = (sel: string) => tidy($(sel).first().attr('content'), 500) || undefined;

  const title = tidy($('title').first().text(), 300) || undefined;
  const declaredNames = new Set<string>();
  for (const n of [meta('meta[property="og:site_name"]'), meta('meta[name="application-name"]')]) {
    if (n) declaredNames.add(n);
  }
  const ld = jsonLdOrganizations($);
  for (const o of ld) if (o.name) declaredNames.add(o.name);

  const themeColors: string[] = [];
  for (const v of [
    meta('meta[name="theme-color"]'),
    meta('meta[name="msapplication-TileColor"]'),
    tidy($('link[rel="mask-icon"]').first().attr('color'), 50) || undefined,
  ]) {
    const c = v ? colorsInCss(v)[0] : undefined;
    if (c && c.alpha >= 0.5 && !GENERATOR_DEFAULTS.has(c.hex)) themeColors.push(c.hex);
  }

  const blocks: TextBlock[] = [];
  const push = (kind: TextBlock['kind'], text: string | undefined) => {
    const t = SECTION_KINDS.has(kind) ? tidyLines(text ?? '') : tidy(text);
    if (t.length >= 2) blocks.push({ kind, text: t });
  };
  push('title', title);
  push('description', meta('meta[name="description"]') ?? meta('meta[property="og:description"]'));
  for (const o of ld) {
    push('tagline', o.slogan);
    push('about', o.description);
  }

  const logos = logoCandidates(html, pageUrl);
  const { logo: logoSvgColors, icons: iconColors } = svgColors($);

  const styleBlocks = $('style')
    .map((_, el) => $(el).text())
    .get()
    .filter((s) => s.trim() !== '');
  const inlineRules = inlineStyleRules($);
  const stylesheetUrls = linkedStylesheetUrls(html, pageUrl);
  const webFonts = stylesheetUrls.flatMap(webFontFamilies);

  // Text: drop what is not prose.
  $('script, style, noscript, template, svg, iframe').remove();
  $('h1')
    .slice(0, 5)
    .each((_, el) => push('heading', $(el).text()));
  $('h2, h3')
    .slice(0, 30)
    .each((_, el) => push('heading', $(el).text()));
  aboutSections($, push);
  let paragraphs = 0;
  $('p').each((_, el) => {
    if (paragraphs >= 60) return false;
    const t = tidy($(el).text());
    if (t.length >= 30) {
      push('paragraph', t);
      paragraphs++;
    }
    return undefined;
  });

  const aboutLinks = new Set<string>();
  const origin = new URL(base).origin;
  $('a[href]').each((_, el) => {
    if (aboutLinks.size >= 3) return false;
    const href = resolveHttpUrl($(el).attr('href'), base);
    if (!href || new URL(href).origin !== origin || href.split('#')[0] === pageUrl.split('#')[0]) return undefined;
    const path = new URL(href).pathname.toLowerCase();
    const text = tidy($(el).text(), 80);
    if (
      /\/(about|about-us|our-story|mission|who-we-are|values|company)(\/|\.html?|$)/.test(path) ||
      /^about( us)?$/i.test(text)
    ) {
      aboutLinks.add(href);
    }
    return undefined;
  });

  const imageAlts = $('img[alt]')
    .map((_, el) => tidy($(el).attr('alt'), 200))
    .get()
    .filter((a) => a.length >= 3)
    .slice(0, 80);

  return {
    url: pageUrl,
    ...(title ? { title } : {}),
    declaredNames: [...declaredNames],
    themeColors,
    logoSvgColors,
    iconColors,
    logos,
    styleBlocks,
    inlineRules,
    stylesheetUrls,
    webFonts,
    blocks,
    aboutLinks: [...aboutLinks],
    imageAlts,
  };
}

interface LdOrganization {
  name?: string;
  slogan?: string;
  description?: string;
  logo?: string;
}

/** Organization / Brand / WebSite / Corporation objects in JSON-LD (graphs and arrays included). */
function jsonLdOrganizations($: CheerioAPI): LdOrganization[] {
  const out: LdOrganization[] = [];
  const visit = (v: unknown, depth: number) => {
    if (depth > 6 || out.length >= 5 || v === null || typeof v !== 'object') return;
    if (Array.isArray(v)) {
      for (const x of v) visit(x, depth + 1);
      return;
    }
    const o = v as Record<string, unknown>;
    const types = [o['@type']].flat().map(String);
    if (types.some((t) => /^(Organization|Corporation|Brand|WebSite|OnlineStore|Store|LocalBusiness)$/.test(t))) {
      const str = (x: unknown) => (typeof x === 'string' ? tidy(x, 1000) : undefined);
      const logo = o.logo;
      const logoUrl =
        typeof logo === 'string'
          ? logo
          : logo && typeof logo === 'object'
            ? str((logo as { url?: unknown }).url)
            : undefined;
      const org: LdOrganization = {};
      const name = str(o.name);
      const slogan = str(o.slogan);
      const description = str(o.description);
      if (name) org.name = name;
      if (slogan) org.slogan = slogan;
      if (description) org.description = description;
      if (logoUrl) org.logo = logoUrl;
      if (Object.keys(org).length) out.push(org);
    }
    if (o['@graph']) visit(o['@graph'], depth + 1);
  };
  $('script[type="application/ld+json"]').each((_, el) => {
    try {
      visit(JSON.parse($(el).text()), 0);
    } catch {
      // a broken JSON-LD block says nothing
    }
  });
  return out;
}

const LOGO_WORD = /logo|brand|wordmark|site-?mark/i;

/**
 * The page's logo as URL extraction finds it (discovery + ranking for purpose `logo`, markup
 * only): declared logos (og:logo, JSON-LD, microdata), header home-link images, then site icons,
 * largest first. Score: 3 and up for what looks like a logo, below 3 for icons and weaker guesses.
 */
function logoCandidates(html: string, pageUrl: string): LogoCandidate[] {
  const ranked = rankCandidates(discoverCandidates(html, pageUrl).candidates, 'logo');
  const out: LogoCandidate[] = [];
  for (const r of ranked) {
    const c = r.candidate;
    // Weaker than LOGO_PICK_MIN is no logo: a page without one gets none rather than a wrong one.
    if (r.rejection || c.type !== 'url' || r.relevanceScore < LOGO_PICK_MIN) continue;
    const strong = r.looksLikeLogo && !isSiteIcon(c);
    const score = Math.round((strong ? Math.max(3, r.relevanceScore * 6) : r.relevanceScore * 4) * 100) / 100;
    out.push({ url: c.url, score });
    if (out.length >= 5) break;
  }
  return out;
}

/** The logo a URL source records: the first that looks like a logo, else the best candidate. */
export function pageLogo(logos: readonly LogoCandidate[]): LogoCandidate | undefined {
  return logos.find((l) => l.score >= 3) ?? logos[0];
}

/**
 * Fill and stroke colours of inline SVGs: those of the logo (marked logo/brand, or in the header)
 * apart from those of icons. `currentColor` and colours under half opacity are skipped.
 */
function svgColors($: CheerioAPI): { logo: string[]; icons: string[] } {
  const logo: string[] = [];
  const icons: string[] = [];
  const push = (into: string[], v: string | undefined) => {
    const c = v ? colorsInCss(v)[0] : undefined;
    if (c && c.alpha >= 0.5 && into.length < 400) into.push(c.hex);
  };
  $('svg').each((i, el) => {
    if (i > 1500) return false;
    const $el = $(el);
    if ($el.parents('svg').length > 0) return undefined;
    const own = `${$el.attr('class') ?? ''} ${$el.attr('id') ?? ''} ${$el.attr('aria-label') ?? ''} ${$el.find('title').first().text()}`;
    const context = $el
      .parents()
      .slice(0, 4)
      .map((_, p) => `${(p as Element).tagName} ${$(p).attr('class') ?? ''} ${$(p).attr('id') ?? ''}`)
      .get()
      .join(' ');
    if (/onetrust|cookie|consent|usercentrics/i.test(context)) return undefined;
    const into = LOGO_WORD.test(own) || LOGO_WORD.test(context) ? logo : icons;
    $el.find('[fill], [stroke], [style]').each((_, node) => {
      const $n = $(node);
      push(into, $n.attr('fill'));
      push(into, $n.attr('stroke'));
      for (const d of parseInlineStyle($n.attr('style') ?? '')) {
        if (d.property === 'fill' || d.property === 'stroke') push(into, d.value);
      }
    });
    for (const r of parseCss($el.find('style').text())) {
      for (const d of r.declarations) if (d.property === 'fill' || d.property === 'stroke') push(into, d.value);
    }
    return undefined;
  });
  return { logo: logo.slice(0, 50), icons };
}

/** `style` attributes (and bgcolor/color attributes) as rules whose selector is `tag.class#id`. */
function inlineStyleRules($: CheerioAPI): CssRule[] {
  const rules: CssRule[] = [];
  $('[style], [bgcolor], font[color]').each((i, el) => {
    if (i > 3000) return false;
    const e = el as Element;
    const $el = $(el);
    if ($el.parents('svg').length > 0 || e.tagName === 'svg') return undefined;
    const classes = ($el.attr('class') ?? '')
      .split(/\s+/)
      .filter(Boolean)
      .slice(0, 5)
      .map((c) => `.${c}`)
      .join('');
    const id = $el.attr('id') ? `#${$el.attr('id')}` : '';
    const inHeader = $el.parents('header, nav').length > 0 ? 'header ' : '';
    const declarations = parseInlineStyle($el.attr('style') ?? '');
    const bg = $el.attr('bgcolor');
    if (bg) declarations.push({ property: 'background-color', value: bg });
    const color = e.tagName === 'font' ? $el.attr('color') : undefined;
    if (color) declarations.push({ property: 'color', value: color });
    if (declarations.length) rules.push({ selector: `${inHeader}${e.tagName}${classes}${id}`, declarations });
    return undefined;
  });
  return rules;
}

/** Families (and weights) a Google Fonts or Bunny Fonts stylesheet link asks for. */
export function webFontFamilies(href: string): { family: string; weights: number[] }[] {
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return [];
  }
  if (!/(^|\.)fonts\.(googleapis\.com|bunny\.net)$/.test(url.hostname)) return [];
  const out: { family: string; weights: number[] }[] = [];
  for (const raw of url.searchParams.getAll('family')) {
    // css: "Roboto:400,700italic|Open+Sans"; css2: "Roboto:wght@400;700", "Open Sans:ital,wght@0,400;1,700".
    for (const spec of raw.split('|')) {
      const [name = '', axesSpec] = spec.split(':');
      const family = name.replace(/\+/g, ' ').trim();
      if (!family) continue;
      const weights = new Set<number>();
      const add = (v: string | undefined) => {
        const n = v === 'regular' ? 400 : v === 'bold' ? 700 : Number.parseInt(v ?? '', 10);
        if (n >= 100 && n <= 900) weights.add(Math.round(n / 100) * 100);
      };
      if (axesSpec?.includes('@')) {
        const [axisNames = '', values = ''] = axesSpec.split('@');
        const wi = axisNames.split(',').indexOf('wght');
        if (wi >= 0)
          for (const tuple of values.split(';')) for (const p of (tuple.split(',')[wi] ?? '').split('..')) add(p);
      } else if (axesSpec) {
        for (const v of axesSpec.split(',')) add(v);
      }
      out.push({ family, weights: [...weights].sort((a, b) => a - b) });
    }
  }
  return out;
}

/** Copy under headings or in sections about the company: `mission`, `values` or `about` blocks. */
function aboutSections($: CheerioAPI, push: (kind: TextBlock['kind'], text: string) => void): void {
  const kindOf = (label: string): TextBlock['kind'] =>
    /mission|purpose|vision/i.test(label) ? 'mission' : /values|principles|believe/i.test(label) ? 'values' : 'about';
  let found = 0;
  $('h1, h2, h3, h4').each((_, el) => {
    if (found >= 6) return false;
    const label = tidy($(el).text(), 120);
    if (!ABOUT_WORDS.test(label) || label.length > 80) return undefined;
    const parts: string[] = [];
    let next = $(el).next();
    for (let i = 0; i < 8 && next.length && !/^h[1-4]$/i.test((next.get(0) as Element).tagName); i++) {
      const items = next.is('li') ? next : next.find('li');
      if (items.length) items.each((_, li) => void parts.push(tidy($(li).text(), 200)));
      else parts.push(tidy(next.text()));
      // A list is the whole section (what follows it is usually something else).
      if (items.length) break;
      next = next.next();
    }
    const text = parts.filter(Boolean).join('\n');
    if (text) {
      push(kindOf(label), `${label}\n${text}`);
      found++;
    }
    return undefined;
  });
  $('section[id], section[class], div[id], div[class]').each((_, el) => {
    if (found >= 8) return false;
    const marker = `${$(el).attr('id') ?? ''} ${$(el).attr('class') ?? ''}`;
    if (!/(^|[\s_-])(about|mission|values|our-story|purpose)([\s_-]|$)/i.test(marker)) return undefined;
    const text = tidy($(el).text());
    if (text.length >= 40) {
      push(kindOf(marker), text);
      found++;
    }
    return undefined;
  });
}
