import * as csstree from 'css-tree';

/** One image reference found in CSS. */
export interface CssImageRef {
  /** Raw URL as written (unresolved). */
  url: string;
  /** Declaration property (`background-image`, `background`, `content`, ...). */
  property: string;
  /** Selector text of the enclosing rule; absent for inline `style` attributes. */
  selector?: string;
}

/** Properties whose `url()` values are pictures; fonts, cursors and filters are ignored. */
const IMAGE_PROPERTIES =
  /^(?:-[a-z]+-)?(?:background|background-image|content|list-style-image|list-style|border-image|border-image-source)$/;

const PARSE_OPTIONS = {
  parseCustomProperty: false,
  positions: false,
  onParseError: () => {},
} as const;

/**
 * Image URLs in a style sheet, with the selector of each rule. Never throws. Only the rule blocks
 * that contain `url(` are handed to css-tree: megabyte-sized page styles otherwise cost seconds.
 */
export function stylesheetImageRefs(css: string): CssImageRef[] {
  if (!css.includes('url(')) return [];
  const out: CssImageRef[] = [];
  const source = css.replace(/\/\*[\s\S]*?\*\//g, '');
  // One linear pass: each innermost `{...}` block with the text before it as its selector.
  let segmentStart = 0;
  let selectorStart = 0;
  let blockStart = -1;
  for (let i = 0; i < source.length; i++) {
    const ch = source.charCodeAt(i);
    if (ch === 0x7b /* { */) {
      selectorStart = segmentStart;
      blockStart = i + 1;
      segmentStart = i + 1;
    } else if (ch === 0x7d /* } */) {
      if (blockStart >= 0) {
        const block = source.slice(blockStart, i);
        const selector = block.includes('url(') ? source.slice(selectorStart, blockStart - 1).trim() : '@';
        // @font-face and @page blocks hold no pictures of the page.
        if (!selector.startsWith('@')) {
          for (const ref of collect(block, 'declarationList')) out.push(selector ? { ...ref, selector } : ref);
        }
      }
      blockStart = -1;
      segmentStart = i + 1;
    }
  }
  return out;
}

/** Image URLs in an inline `style` attribute. Never throws. */
export function inlineStyleImageRefs(style: string): CssImageRef[] {
  if (!style.includes('url(')) return [];
  return collect(style, 'declarationList');
}

function collect(css: string, context: string): CssImageRef[] {
  let ast: csstree.CssNode;
  try {
    ast = csstree.parse(css, { ...PARSE_OPTIONS, context });
  } catch {
    return [];
  }
  const out: CssImageRef[] = [];
  csstree.walk(ast, {
    visit: 'Url',
    enter(this: csstree.WalkContext, node: csstree.Url) {
      const property = this.declaration?.property.toLowerCase();
      if (!property || !IMAGE_PROPERTIES.test(property)) return;
      out.push({ url: node.value, property });
    },
  });
  return out;
}

/** The `@import` URLs of a style sheet, so a caller can fetch nested sheets. */
export function stylesheetImports(css: string): string[] {
  if (!css.includes('@import')) return [];
  const out: string[] = [];
  for (const m of css.matchAll(/@import\s+(?:url\(\s*)?["']?([^"')\s;]+)["']?\s*\)?/gi)) out.push(m[1]!);
  return out;
}
