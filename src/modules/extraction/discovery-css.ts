import type { Element } from 'domhandler';
import type { CssImageRef } from './css-images.ts';
import type { Discovery } from './discovery.ts';
import type { SourceKind } from './discovery-types.ts';
import { classTokens } from './discovery-util.ts';
import { resolveHttpUrl } from './urls.ts';

/** CSS backgrounds from `<style>` elements and fetched style sheets, placed on the element they style. */
export function addCss(d: Discovery, refs: CssImageRef[], base: string, source: SourceKind): void {
  for (const ref of refs) {
    const el = ref.selector ? firstMatch(d, ref.selector) : undefined;
    const ctx = el ? d.ctxOf.get(el) : undefined;
    const tokens = ref.selector ? classTokens(ref.selector.replace(/[.#>+~:[\]()*,]/g, ' ')) : [];
    const url = resolveHttpUrl(ref.url, base);
    if (!url) continue;
    d.addSighting({ source, renditions: [{ url, source }], el, ctx, tokens });
  }
}

/**
 * The first element the selector's subject most likely styles: by the id, else a class, of the
 * last compound of each selector in the list. An index lookup, not full selector matching,
 * which on pages with thousands of rules would cost seconds.
 */
function firstMatch(d: Discovery, selector: string): Element | undefined {
  for (const one of selector.split(',')) {
    const subject =
      one
        .replace(/::?[a-z-]+(?:\([^)]*\))?/gi, '')
        .trim()
        .split(/[\s>+~]+/)
        .pop() ?? '';
    const id = /#([\w-]+)/.exec(subject)?.[1];
    const byId = id ? d.firstById.get(id) : undefined;
    if (byId) return byId;
    for (const m of subject.matchAll(/\.([\w-]+)/g)) {
      const el = d.firstByClass.get(m[1]!);
      if (el) return el;
    }
  }
  return undefined;
}
