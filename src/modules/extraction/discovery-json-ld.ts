import type { DiscoveryWalk } from './discovery-types.ts';
import { pushUnique, toInt } from './discovery-util.ts';
import { cleanText } from './text.ts';

/** JSON-LD: Product images (the page's main picture), other `image`s and ImageObjects, and `logo`s. */
export function addJsonLd(d: DiscoveryWalk, text: string): void {
  const data = parseJsonLoose(text);
  if (data === undefined) return;
  // `{"@id": ".../#primaryimage"}` (Yoast, most WordPress sites) refers to a node of the graph:
  // it is resolved to that node, never taken as an image URL itself.
  const nodes = nodesById(data);
  const images = (value: unknown) => jsonLdImages(value, 0, nodes);
  const seen = new Set<unknown>();
  // `inProduct`: below a Product (its brand, manufacturer, offers' seller): a logo there is the
  // product brand's or the seller's, not the page's own.
  const visit = (node: unknown, depth: number, inProduct = false): void => {
    if (depth > 12 || node === null || typeof node !== 'object' || seen.has(node)) return;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const n of node.slice(0, 200)) visit(n, depth + 1, inProduct);
      return;
    }
    const obj = node as Record<string, unknown>;
    const types = ([] as unknown[]).concat(obj['@type'] ?? []).map((t) => String(t).replace(/^.*[/:#]/, ''));
    const isProduct = types.some((t) =>
      /^(?:Product|IndividualProduct|ProductModel|ProductGroup|Vehicle|Book)$/.test(t),
    );
    if (isProduct) {
      if (typeof obj.name === 'string') d.jsonLdName ??= cleanText(obj.name, 200) || undefined;
      for (const img of images(obj.image)) {
        const draft = d.addUrlSighting(img.url, {
          source: 'json-ld-product',
          width: img.width,
          height: img.height,
          texts: [img.caption, typeof obj.name === 'string' ? obj.name : undefined],
        });
        if (draft?.candidate.type === 'url') pushUnique(d.page.jsonLdProductImages, draft.candidate.url);
      }
    } else if (types.includes('ImageObject')) {
      for (const img of images(obj)) {
        d.addUrlSighting(img.url, {
          source: 'json-ld-image',
          width: img.width,
          height: img.height,
          texts: [img.caption],
        });
      }
    } else if (obj.image !== undefined) {
      for (const img of images(obj.image)) {
        d.addUrlSighting(img.url, {
          source: 'json-ld-image',
          width: img.width,
          height: img.height,
          texts: [img.caption],
        });
      }
    }
    if (obj.logo !== undefined) {
      for (const img of images(obj.logo)) {
        if (inProduct) {
          // The product brand's logo: a logo, but not the one the page declares as its own.
          const draft = d.addUrlSighting(img.url, {
            source: 'json-ld-image',
            tokens: ['logo'],
            width: img.width,
            height: img.height,
          });
          if (draft) draft.candidate.evidence.productBrandLogo = true;
          continue;
        }
        d.addUrlSighting(img.url, {
          source: 'json-ld-logo',
          tokens: ['logo'],
          width: img.width,
          height: img.height,
        });
      }
    }
    for (const [k, v] of Object.entries(obj)) {
      if (k === 'image' || k === 'logo') continue;
      if (v !== null && typeof v === 'object') visit(v, depth + 1, inProduct || isProduct);
    }
  };
  visit(data, 0);
}

interface JsonLdImage {
  url: string;
  width?: number;
  height?: number;
  caption?: string;
}

/**
 * The images of a JSON-LD `image`/`logo` value: a string, an ImageObject, or arrays of either. A
 * reference (`{"@id": "…#logo"}`) is resolved through `nodes` (the document's nodes by `@id`) to
 * that node's `contentUrl`/`url`; an `@id` is a node's name, never an image URL.
 */
export function jsonLdImages(
  value: unknown,
  depth = 0,
  nodes: ReadonlyMap<string, Record<string, unknown>> = new Map(),
): JsonLdImage[] {
  if (depth > 4 || value === null || value === undefined) return [];
  if (typeof value === 'string') return value.trim() ? [{ url: value.trim() }] : [];
  if (Array.isArray(value)) return value.slice(0, 50).flatMap((v) => jsonLdImages(v, depth + 1, nodes));
  if (typeof value !== 'object') return [];
  let o = value as Record<string, unknown>;
  const ref = o['@id'];
  if (typeof ref === 'string' && o.url === undefined && o.contentUrl === undefined) {
    const target = nodes.get(ref);
    if (!target || target === o) return [];
    o = target;
  }
  const url = [o.contentUrl, o.url].find((v) => typeof v === 'string' && /^(?:https?:)?\/\/|^\//i.test(v));
  if (typeof url !== 'string') return [];
  const caption = [o.caption, o.name, o.description].find((v) => typeof v === 'string') as string | undefined;
  return [{ url, width: toInt(o.width), height: toInt(o.height), caption }];
}

/** JSON.parse that tolerates HTML comment wrappers, CDATA and raw control characters. */
export function parseJsonLoose(text: string): unknown {
  const trimmed = text
    .trim()
    .replace(/^<!--|-->$/g, '')
    .replace(/^\/\/\s*<!\[CDATA\[|\/\/\s*\]\]>$/g, '')
    .trim();
  if (!trimmed || trimmed.length > 4_000_000) return undefined;
  try {
    return JSON.parse(trimmed);
  } catch {
    try {
      // biome-ignore lint/suspicious/noControlCharactersInRegex: raw control characters in JSON strings are what breaks
      return JSON.parse(trimmed.replace(/[\u0000-\u001f]+/g, ' '));
    } catch {
      return undefined;
    }
  }
}

/** Every node of a JSON-LD document (`@graph` included) that has an `@id`, by that id. */
function nodesById(data: unknown): Map<string, Record<string, unknown>> {
  const out = new Map<string, Record<string, unknown>>();
  const seen = new Set<unknown>();
  const visit = (node: unknown, depth: number): void => {
    if (depth > 12 || node === null || typeof node !== 'object' || seen.has(node) || seen.size > 5000) return;
    seen.add(node);
    if (Array.isArray(node)) {
      for (const n of node.slice(0, 500)) visit(n, depth + 1);
      return;
    }
    const obj = node as Record<string, unknown>;
    const id = obj['@id'];
    // The defining node (with more than an @id) wins over bare references to it.
    if (typeof id === 'string' && Object.keys(obj).length > 1 && !out.has(id)) out.set(id, obj);
    for (const v of Object.values(obj)) if (v !== null && typeof v === 'object') visit(v, depth + 1);
  };
  visit(data, 0);
  return out;
}
