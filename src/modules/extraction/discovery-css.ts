import type { Element } from 'domhandler';
import type { CssImageRef } from './css-images.ts';
import type { DiscoveryWalk, SourceKind } from './discovery-types.ts';
import { classTokens } from './discovery-util.ts';
import { resolveHttpUrl } from './urls.ts';

/** CSS backgrounds from `<style>` elements and fetched style sheets, placed on the element they style. */
export function addCss(d: DiscoveryWalk, refs: CssImageRef[], base: string, source: SourceKind): void {
  const cache = new Map<string, Element | undefined>();
  for (const ref of refs) {
    const el = ref.selector ? firstMatch(d, ref.selector, cache) : undefined;
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
function firstMatch(d: DiscoveryWalk, selector: string, cache: Map<string, Element | undefined>): Element | undefined {
  for (const one of selector.split(',')) {
    const compounds = one
      .replace(/::?[a-z-]+(?:\([^)]*\))?/gi, '')
      .trim()
      .split(/[\s>+~]+/);
    const subject = compounds.pop() ?? '';
    const el = byIdOrClass(d, subject);
    if (el) return el;
    // A bare tag (`#banner div.logo a`): its first element inside the nearest compound that names one.
    const tag = /^[a-z][a-z0-9]*$/i.exec(subject)?.[0];
    if (!tag || compounds.length === 0) continue;
    const key = `${compounds.at(-1)} ${tag}`;
    if (!cache.has(key)) {
      const scope = byIdOrClass(d, compounds.at(-1)!);
      cache.set(key, scope ? (d.$(scope).find(tag).first().get(0) as Element | undefined) : undefined);
    }
    const inner = cache.get(key);
    if (inner) return inner;
  }
  return undefined;
}

function byIdOrClass(d: DiscoveryWalk, compound: string): Element | undefined {
  const id = /#([\w-]+)/.exec(compound)?.[1];
  const byId = id ? d.firstById.get(id) : undefined;
  if (byId) return byId;
  for (const m of compound.matchAll(/\.([\w-]+)/g)) {
    const el = d.firstByClass.get(m[1]!);
    if (el) return el;
  }
  return undefined;
}
