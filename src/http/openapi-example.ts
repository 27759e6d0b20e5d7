/**
 * A request example made from a body schema, for the OpenAPI document: the schema's own
 * `examples`/`default` when it has them, else a plausible value by member name and format (a
 * product photo brief for a prompt, a UUID for an id...). Required members always, optional
 * ones only when they carry an example or a default. Pure.
 */
type Schema = Record<string, unknown>;

const UUID = '3f6e672c-a3df-4190-888a-af77463ce0da';

/** Plausible values by member name (the API's own vocabulary). */
const BY_NAME: Record<string, unknown> = {
  name: 'Solidus',
  industry: 'Apparel',
  description: 'Caps and totes for city walkers.',
  mission: 'Make everyday carry last.',
  blendingPrompt: 'The red cap on a concrete ledge at golden hour',
  originalPrompt: 'The red cap on a concrete ledge at golden hour',
  prompt: 'A sunlit concrete ledge with soft shadows',
  url: 'https://shop.example/products/red-cap',
  fileName: 'red-cap.png',
  fileType: 'image/png',
  fileSize: 482113,
  userPrompts: ['Slow push-in on the cap'],
  productAssetIds: [UUID],
  aspectRatio: '4:3',
  email: 'ada@example.com',
};

const BY_FORMAT: Record<string, unknown> = {
  uuid: UUID,
  uri: 'https://shop.example/products/red-cap',
  'date-time': '2026-01-15T09:30:00.000Z',
  email: 'ada@example.com',
};

export function exampleOf(schema: unknown, name = '', depth = 0): unknown {
  if (typeof schema !== 'object' || schema === null || depth > 6) return undefined;
  const s = schema as Schema;
  if (Array.isArray(s.examples) && s.examples.length > 0) return s.examples[0];
  if (s.example !== undefined) return s.example;
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum) && s.enum.length > 0) return s.enum[0];
  const alts = (s.anyOf ?? s.oneOf) as unknown[] | undefined;
  if (Array.isArray(alts)) {
    const first = alts.find((a) => (a as Schema).type !== 'null');
    return first ? exampleOf(first, name, depth) : null;
  }
  if (name in BY_NAME && depth > 0) return BY_NAME[name];
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type;
  switch (type) {
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, unknown>;
      const required = new Set((s.required ?? []) as string[]);
      const out: Record<string, unknown> = {};
      const min = typeof s.minProperties === 'number' ? s.minProperties : 0;
      for (const [key, sub] of Object.entries(props)) {
        const subSchema = sub as Schema;
        const known = key in BY_NAME || subSchema.default !== undefined || Array.isArray(subSchema.examples);
        if (!required.has(key) && !known) continue;
        const v = exampleOf(sub, key, depth + 1);
        if (v !== undefined) out[key] = v;
      }
      // A body that must name at least `minProperties` members (a PATCH) gets its first ones.
      for (const [key, sub] of Object.entries(props)) {
        if (Object.keys(out).length >= min) break;
        const v = key in out ? undefined : exampleOf(sub, key, depth + 1);
        if (v !== undefined) out[key] = v;
      }
      return out;
    }
    case 'array': {
      if (/Ids$/.test(name)) return [UUID];
      const item = exampleOf(s.items, name.replace(/s$/, ''), depth + 1);
      return item === undefined ? [] : [item];
    }
    case 'string':
      if (typeof s.format === 'string' && s.format in BY_FORMAT) return BY_FORMAT[s.format];
      if (/Id$/.test(name)) return UUID;
      return typeof s.minLength === 'number' && s.minLength > 8 ? 'A short text about it.' : 'text';
    case 'integer':
    case 'number':
      return typeof s.minimum === 'number' ? s.minimum : 1;
    case 'boolean':
      return false;
    default:
      return undefined;
  }
}
