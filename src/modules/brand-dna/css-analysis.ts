import { colorsInCss } from './color.ts';

/**
 * Colours and fonts of a web page's style sheets, weighted by what they style. A small linear CSS
 * scanner (rules, nested rules, @media/@supports groups, @font-face; comments, strings and
 * parentheses respected) feeds pure scoring rules, documented in docs/decisions/brand-dna.md (Brand DNA):
 * buttons, brand bars, links and headings beat borders and shadows; status colours (error,
 * success...) and hover states count little; custom properties named like brand colours count a lot.
 */
export interface CssDeclaration {
  property: string;
  value: string;
}

export interface CssRule {
  /** Selector list of a style rule; `@font-face` for font-face blocks. */
  selector: string;
  declarations: CssDeclaration[];
}

export type ColorRoleHint = 'primary' | 'secondary' | 'accent' | 'neutral' | 'background' | 'text';

export interface ColorCandidate {
  hex: string;
  weight: number;
  roleHint?: ColorRoleHint;
}

export type FontRole = 'heading' | 'body' | 'any';

export interface FontCandidate {
  family: string;
  role: FontRole;
  weight: number;
  /** font-weight values seen with it (100..900). */
  weights: number[];
  /** The rest of the font-family list (fallbacks), as written. */
  fallbacks: string[];
}

const GROUP_AT_RULES = new Set(['media', 'supports', 'layer', 'container', 'document', '-moz-document', 'scope']);

/** Parses CSS text into style rules and @font-face blocks. Never throws; stops after `maxRules`. */
export function parseCss(input: string, maxRules = 50_000): CssRule[] {
  const css = input.replace(/\/\*[\s\S]*?(?:\*\/|$)/g, ' ');
  const rules: CssRule[] = [];
  type Frame = { kind: 'group' | 'style' | 'skip'; rule?: CssRule };
  const stack: Frame[] = [];
  let buf = '';
  let quote = '';
  let parens = 0;
  const top = () => stack[stack.length - 1];
  const flushDeclaration = () => {
    const f = top();
    const text = buf.trim();
    buf = '';
    if (!f?.rule || !text) return;
    const colon = text.indexOf(':');
    if (colon <= 0) return;
    const property = text.slice(0, colon).trim().toLowerCase();
    const value = text
      .slice(colon + 1)
      .replace(/!\s*important\s*$/i, '')
      .trim();
    if (property && value && !/[{}]/.test(property)) f.rule.declarations.push({ property, value });
  };
  for (let i = 0; i < css.length; i++) {
    const ch = css[i]!;
    if (quote) {
      buf += ch;
      if (ch === '\\' && i + 1 < css.length) buf += css[++i];
      else if (ch === quote) quote = '';
      continue;
    }
    if (ch === '"' || ch === "'") {
      quote = ch;
      buf += ch;
      continue;
    }
    if (ch === '(') parens++;
    else if (ch === ')') parens = Math.max(0, parens - 1);
    if (parens > 0) {
      buf += ch;
      continue;
    }
    if (ch === '{') {
      const prelude = buf.trim();
      buf = '';
      const parent = top();
      if (parent?.kind === 'skip') {
        stack.push({ kind: 'skip' });
      } else if (prelude.startsWith('@')) {
        const name = /^@([-\w]+)/.exec(prelude)?.[1]?.toLowerCase() ?? '';
        if (name === 'font-face') {
          const rule = { selector: '@font-face', declarations: [] };
          if (rules.length < maxRules) rules.push(rule);
          stack.push({ kind: 'style', rule });
        } else stack.push({ kind: GROUP_AT_RULES.has(name) ? 'group' : 'skip' });
      } else {
        const parentSelector = parent?.kind === 'style' ? parent.rule?.selector : undefined;
        const selector =
          parentSelector && parentSelector !== '@font-face'
            ? prelude
                .split(',')
                .map((p) => (p.includes('&') ? p.replace(/&/g, parentSelector) : `${parentSelector} ${p.trim()}`))
                .join(', ')
            : prelude;
        const rule = { selector, declarations: [] };
        if (rules.length < maxRules) rules.push(rule);
        stack.push({ kind: 'style', rule });
      }
      continue;
    }
    if (ch === ';') {
      if (top()?.kind === 'style') flushDeclaration();
      else buf = '';
      continue;
    }
    if (ch === '}') {
      if (top()?.kind === 'style') flushDeclaration();
      buf = '';
      stack.pop();
      continue;
    }
    buf += ch;
  }
  return rules;
}

/** Declarations of an inline `style` attribute. */
export function parseInlineStyle(style: string): CssDeclaration[] {
  return parseCss(`x{${style}}`)[0]?.declarations ?? [];
}

// --------------------------------------------------------------------------------------------
// Colours

/** What a declaration's property contributes (a border says less about a brand than a button fill). */
const PROPERTY_WEIGHT: Record<string, number> = {
  background: 1,
  'background-color': 1,
  'background-image': 0.6,
  'accent-color': 1,
  fill: 0.8,
  color: 0.7,
  stroke: 0.5,
  'border-color': 0.25,
  border: 0.25,
  'border-top': 0.25,
  'border-bottom': 0.25,
  'border-left': 0.25,
  'border-right': 0.25,
  'border-top-color': 0.25,
  'border-bottom-color': 0.25,
  'border-left-color': 0.25,
  'border-right-color': 0.25,
  outline: 0.1,
  'outline-color': 0.1,
  'text-decoration-color': 0.2,
  'text-decoration': 0.2,
  'caret-color': 0.2,
  'column-rule-color': 0.1,
  'box-shadow': 0.1,
  'text-shadow': 0.1,
};

interface SelectorClass {
  weight: number;
  /** The selector targets the page itself (html, body, :root). */
  page: boolean;
  fontRole: FontRole | 'ui';
  fontWeight: number;
}

const PART = {
  button: /(^|[\s>+~(])(button|input\[type=["']?submit)|[.#][\w-]*(\bbtn\b|button|\bcta\b)/i,
  bar: /(^|[\s>+~])(header|nav)\b|[.#][\w-]*(header|navbar|\bnav\b|topbar|top-bar|masthead|brand|logo|hero|banner|announcement|promo)/i,
  link: /(^|[\s>+~])a($|[\s:.#[>+~])|[.#][\w-]*\blink\b/i,
  heading: /(^|[\s>+~])h[1-6]\b|[.#][\w-]*(heading|headline|\btitle\b|display)/i,
  accent: /[.#][\w-]*(badge|highlight|\bactive\b|selected|primary|accent|brand)/i,
  page: /^(html|body|:root)$/i,
  footer: /(^|[\s>+~])footer\b|[.#][\w-]*footer/i,
  status: /(error|danger|warning|success|alert|invalid|\bvalid|\binfo\b|notice|toast|disabled)/i,
  state: /:(hover|focus|active|visited|focus-visible|focus-within|disabled)|::(selection|placeholder)/i,
  /** Widgets other companies style (consent banners, chat, reviews, carousels): not the brand. */
  thirdParty:
    /onetrust|ot-sdk|optanon|ot-pc|usercentrics|[.#]uc-|cookie|consent|[.#]cc-|cmp|didomi|truste|osano|gdpr|intercom|zendesk|drift|livechat|hubspot|klaviyo|yotpo|trustpilot|recaptcha|swiper|slick-|fancybox|pswp/i,
  ui: /(^|[\s>+~])(button|input|select|textarea|label|nav|code|pre|kbd)\b|[.#][\w-]*(btn|button|icon|nav|menu)/i,
  body: /^(html|body|:root|p|main|article)$|(^|[\s>+~])p$|[.#][\w-]*(content|text|copy|prose|article)\b/i,
  bigHeading: /(^|[\s>+~])h[12]\b|[.#][\w-]*(headline|display|hero)/i,
};

/** How much a selector's colours say about the brand, and which font role it sets. */
export function classifySelector(selector: string): SelectorClass {
  let best: SelectorClass = { weight: 0, page: false, fontRole: 'any', fontWeight: 0.5 };
  for (const raw of selector.split(',')) {
    const part = raw.trim();
    if (!part) continue;
    let weight = 1;
    if (PART.button.test(part)) weight = 5;
    else if (PART.bar.test(part)) weight = 4;
    else if (PART.link.test(part) || PART.heading.test(part) || PART.accent.test(part)) weight = 3;
    else if (PART.page.test(part) || PART.footer.test(part)) weight = 2;
    if (PART.status.test(part)) weight *= 0.2;
    if (PART.state.test(part)) weight *= 0.5;
    if (PART.thirdParty.test(part)) weight = 0;
    let fontRole: SelectorClass['fontRole'] = 'any';
    let fontWeight = 0.5;
    if (PART.heading.test(part) && !PART.ui.test(part)) {
      fontRole = 'heading';
      fontWeight = PART.bigHeading.test(part) ? 3 : 2;
    } else if (PART.body.test(part)) {
      fontRole = 'body';
      fontWeight = PART.page.test(part) ? 3 : 1;
    } else if (PART.ui.test(part)) {
      fontRole = 'ui';
      fontWeight = 0.3;
    }
    if (weight > best.weight || (weight === best.weight && fontWeight > best.fontWeight)) {
      best = { weight, page: PART.page.test(part), fontRole, fontWeight };
    }
  }
  return best;
}

/** A role suggested by a custom property's name (`--brand-primary`, `--color-bg`...). */
export function roleFromName(name: string): ColorRoleHint | undefined {
  const n = name.toLowerCase();
  if (/secondary/.test(n)) return 'secondary';
  if (/accent|highlight|tertiary|cta/.test(n)) return 'accent';
  if (/primary|brand|main|theme/.test(n)) return 'primary';
  if (/(^|-)(bg|background|surface|canvas|paper|base)(-|$)/.test(n)) return 'background';
  if (/(^|-)(text|fg|foreground|ink|body-color|heading-color)(-|$)/.test(n)) return 'text';
  if (/neutral|gr[ae]y|muted/.test(n)) return 'neutral';
  return undefined;
}

const BRANDISH_NAME = /brand|primary|secondary|accent|main|theme|highlight|cta/i;

/** Custom property values (last definition wins, as in the cascade), names lower case. */
export function customProperties(rules: readonly CssRule[]): Map<string, string> {
  const vars = new Map<string, string>();
  for (const r of rules) {
    for (const d of r.declarations) if (d.property.startsWith('--')) vars.set(d.property, d.value);
  }
  return vars;
}

/** Replaces `var(--x, fallback)` with the property's value (nested up to 6 deep). */
export function resolveVars(value: string, vars: ReadonlyMap<string, string>, depth = 0): string {
  if (depth > 6 || !value.includes('var(')) return value;
  const out = value.replace(
    /var\(\s*(--[\w-]+)\s*(?:,\s*([^()]*(?:\([^()]*\))?[^()]*))?\)/gi,
    (_m, name: string, fb?: string) => {
      const v = vars.get(name.toLowerCase());
      return v ?? fb ?? '';
    },
  );
  return out === value ? out : resolveVars(out, vars, depth + 1);
}

/**
 * Weighted colour candidates of a set of rules: each declared colour adds selector weight ×
 * property weight × alpha (colours under half opacity are skipped). Custom properties named like
 * brand colours add 3 (with the role their name suggests); other custom properties 0.2.
 */
export function cssColors(rules: readonly CssRule[], vars = customProperties(rules)): ColorCandidate[] {
  const out: ColorCandidate[] = [];
  for (const r of rules) {
    if (r.selector === '@font-face') continue;
    const cls = classifySelector(r.selector);
    for (const d of r.declarations) {
      if (d.property.startsWith('--')) {
        const colors = colorsInCss(resolveVars(d.value, vars));
        if (colors.length !== 1) continue; // a list of values is not one colour token
        const c = colors[0]!;
        if (c.alpha < 0.5) continue;
        const brandish = BRANDISH_NAME.test(d.property);
        const roleHint = roleFromName(d.property);
        out.push({ hex: c.hex, weight: (brandish ? 3 : 0.2) * c.alpha, ...(roleHint ? { roleHint } : {}) });
        continue;
      }
      const pw = PROPERTY_WEIGHT[d.property];
      if (pw === undefined || cls.weight === 0) continue;
      const value = resolveVars(d.value, vars);
      const colors = colorsInCss(value);
      const gradient = /gradient\(/i.test(value) ? 0.6 : 1;
      for (const c of colors) {
        if (c.alpha < 0.5) continue;
        let roleHint: ColorRoleHint | undefined;
        if (cls.page && (d.property === 'background' || d.property === 'background-color')) roleHint = 'background';
        else if (cls.page && d.property === 'color') roleHint = 'text';
        out.push({ hex: c.hex, weight: cls.weight * pw * gradient * c.alpha, ...(roleHint ? { roleHint } : {}) });
      }
    }
  }
  return out;
}

// --------------------------------------------------------------------------------------------
// Fonts

const GENERIC = new Set([
  'serif',
  'sans-serif',
  'monospace',
  'cursive',
  'fantasy',
  'system-ui',
  'ui-sans-serif',
  'ui-serif',
  'ui-monospace',
  'ui-rounded',
  'math',
  'emoji',
  'fangsong',
  '-apple-system',
  'blinkmacsystemfont',
  'inherit',
  'initial',
  'unset',
  'revert',
  'apple color emoji',
  'segoe ui emoji',
  'segoe ui symbol',
  'noto color emoji',
]);

const ICON_FONT =
  /icon|awesome|glyph|material symbols|dashicons|eicons|fontello|icomoon|ionicons|feather|slick|swiper|\bstar\b|wp-block|fa-|bootstrap-icons|genericons|revicons/i;

export const isGenericFamily = (family: string): boolean => GENERIC.has(family.toLowerCase());
export const isIconFamily = (family: string): boolean => ICON_FONT.test(family);

/** `"Open Sans", Arial, sans-serif` → ['Open Sans', 'Arial', 'sans-serif']. */
export function fontFamilyList(value: string): string[] {
  const out: string[] = [];
  for (const m of value.matchAll(/"([^"]*)"|'([^']*)'|([^,]+)/g)) {
    const name = (m[1] ?? m[2] ?? m[3] ?? '')
      .trim()
      .replace(/^["']|["']$/g, '')
      .replace(/\s+/g, ' ');
    if (name && !/^var\(/i.test(name) && name.length <= 80) out.push(name);
  }
  return out;
}

/** The family list of a `font` shorthand (what follows the size). */
export function familiesOfFontShorthand(value: string): string[] {
  const m =
    /(?:^|\s)(?:[\d.]+(?:px|pt|em|rem|%|vw|vh|ex|ch)|xx-small|x-small|small|medium|large|x-large|xx-large|larger|smaller)(?:\s*\/\s*\S+)?\s+(.+)$/i.exec(
      value.trim(),
    );
  return m ? fontFamilyList(m[1]!) : [];
}

/** 100..900 from a font-weight value; bold 700, normal 400; undefined for relative values. */
export function numericWeight(value: string): number[] {
  const v = value.trim().toLowerCase();
  if (v === 'bold') return [700];
  if (v === 'normal' || v === 'regular') return [400];
  const nums = v
    .split(/\s+/)
    .map((x) => Number(x))
    .filter((n) => Number.isInteger(n) && n >= 1 && n <= 1000)
    .map((n) => Math.min(900, Math.max(100, Math.round(n / 100) * 100)));
  return [...new Set(nums)];
}

/** The family a font-family list names: the first one that is neither generic nor an icon font. */
export function primaryFamily(list: readonly string[]): { family: string; fallbacks: string[] } | undefined {
  const i = list.findIndex((f) => !isGenericFamily(f) && !isIconFamily(f));
  if (i < 0) return undefined;
  return { family: list[i]!, fallbacks: list.slice(i + 1).filter((f) => !isIconFamily(f)) };
}

/** Families declared with @font-face (so the site loads them on purpose), with their weights. */
export function fontFaces(rules: readonly CssRule[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const r of rules) {
    if (r.selector !== '@font-face') continue;
    const fam = r.declarations.find((d) => d.property === 'font-family');
    const family = fam && fontFamilyList(fam.value)[0];
    if (!family || isIconFamily(family)) continue;
    const w = r.declarations.find((d) => d.property === 'font-weight');
    const weights = w ? numericWeight(w.value) : [400];
    out.set(
      family,
      [...new Set([...(out.get(family) ?? []), ...weights])].sort((a, b) => a - b),
    );
  }
  return out;
}

/**
 * Font candidates: every font-family (or font shorthand) by the role of its selector — headings
 * (h1, h2, .headline... weight 3; h3-h6 2), body (html, body weight 3; p, .content 1), everything
 * else 0.5, controls 0.3 — and custom properties named for fonts (`--font-heading`). Families the
 * site declares with @font-face count 1.5×.
 */
export function cssFonts(rules: readonly CssRule[], vars = customProperties(rules)): FontCandidate[] {
  const faces = fontFaces(rules);
  const declared = new Set([...faces.keys()].map((f) => f.toLowerCase()));
  const out: FontCandidate[] = [];
  const add = (list: string[], role: FontRole, weight: number, weights: number[]) => {
    const p = primaryFamily(list);
    if (!p) return;
    const boost = declared.has(p.family.toLowerCase()) ? 1.5 : 1;
    out.push({ family: p.family, role, weight: weight * boost, weights, fallbacks: p.fallbacks });
  };
  for (const r of rules) {
    if (r.selector === '@font-face') continue;
    const cls = classifySelector(r.selector);
    const fw = r.declarations.find((d) => d.property === 'font-weight');
    const weights = fw ? numericWeight(resolveVars(fw.value, vars)) : [];
    for (const d of r.declarations) {
      if (d.property.startsWith('--')) {
        if (!/font|family|typeface/.test(d.property) || /size|weight|height|spacing/.test(d.property)) continue;
        const role: FontRole = /head|display|title/.test(d.property)
          ? 'heading'
          : /body|base|text|sans|copy/.test(d.property)
            ? 'body'
            : 'any';
        add(fontFamilyList(resolveVars(d.value, vars)), role, 1, []);
        continue;
      }
      let list: string[] | undefined;
      if (d.property === 'font-family') list = fontFamilyList(resolveVars(d.value, vars));
      else if (d.property === 'font') list = familiesOfFontShorthand(resolveVars(d.value, vars));
      if (!list?.length) continue;
      const role: FontRole = cls.fontRole === 'ui' ? 'any' : cls.fontRole;
      add(list, role, cls.fontWeight, weights);
    }
  }
  return out;
}
