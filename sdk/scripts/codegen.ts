/**
 * A small OpenAPI 3.1 → TypeScript generator for the subset of JSON Schema the Atelier routes
 * emit (TypeBox: object/array/string/number/integer/boolean/null, enum, const, anyOf, type arrays,
 * additionalProperties). No dependency, deterministic output: the same document always gives the
 * same text, so a test can compare the checked-in file with what the served document gives.
 *
 * Output: one exported type per schema `title` whose shape is the same everywhere it appears (the
 * global-clashing `Error` becomes `ErrorBody`), and `Operations`, keyed `"METHOD /path"`, each with
 * `path`, `query`, `headers`, `body` and `responses` (status → JSON body, `void` when none).
 */

type Schema = {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  format?: string;
  [k: string]: unknown;
};

interface Parameter {
  in: 'query' | 'path' | 'header' | 'cookie';
  name: string;
  required?: boolean;
  description?: string;
  schema?: Schema;
}

interface Operation {
  summary?: string;
  description?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
}

export interface OpenApiDocument {
  openapi: string;
  info: { title: string; version: string };
  paths: Record<string, Record<string, Operation>>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options'];
/** Titles that would shadow a global name in the generated module. */
const RESERVED = new Set(['Error', 'Object', 'Array', 'String', 'Number', 'Boolean', 'Date', 'Map', 'Set', 'Record']);

const typeName = (title: string) => {
  const base = title.replace(/[^A-Za-z0-9_]/g, '_').replace(/^(\d)/, '_$1');
  return RESERVED.has(base) ? `${base}Body` : base;
};

/** The schema without documentation keys, keys sorted: two titled schemas with equal shapes share a name. */
function shapeKey(s: unknown): string {
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (!v || typeof v !== 'object') return v;
    const o: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      if (k === 'description' || k === 'examples' || k === 'example') continue;
      o[k] = strip((v as Record<string, unknown>)[k]);
    }
    return o;
  };
  return JSON.stringify(strip(s));
}

const isSchemaNode = (s: Schema) =>
  s.type !== undefined || s.anyOf !== undefined || s.enum !== undefined || s.properties !== undefined;

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const propKey = (k: string) => (IDENT.test(k) ? k : JSON.stringify(k));

function doc(text: string | undefined, pad: string): string {
  if (!text) return '';
  const lines = text.replace(/\*\//g, '*\\/').trim().split('\n');
  if (lines.length === 1) return `${pad}/** ${lines[0]} */\n`;
  return `${pad}/**\n${lines.map((l) => `${pad} *${l ? ` ${l}` : ''}`).join('\n')}\n${pad} */\n`;
}

export function generateTypes(document: OpenApiDocument, source = 'GET /v1/openapi.json'): string {
  // 1. Titled schemas: a name for each title whose shape is the same at every use.
  const byTitle = new Map<string, { schema: Schema; shapes: Set<string>; docs: Set<string | undefined> }>();
  const visit = (v: unknown) => {
    if (Array.isArray(v)) return v.forEach(visit);
    if (!v || typeof v !== 'object') return;
    const s = v as Schema;
    if (typeof s.title === 'string' && isSchemaNode(s)) {
      const entry = byTitle.get(s.title) ?? { schema: s, shapes: new Set<string>(), docs: new Set() };
      entry.shapes.add(shapeKey(s));
      entry.docs.add(s.description);
      byTitle.set(s.title, entry);
    }
    for (const [k, child] of Object.entries(s)) if (k !== 'enum' && k !== 'const' && k !== 'default') visit(child);
  };
  visit(document.paths);
  const named = new Map<string, { schema: Schema; description: string | undefined }>();
  // The type's own comment only when every use describes it the same way (else it says what one response is).
  for (const [title, { schema, shapes, docs }] of [...byTitle].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    if (shapes.size === 1) named.set(title, { schema, description: docs.size === 1 ? schema.description : undefined });

  // 2. Schema → TypeScript.
  const ts = (s: Schema | undefined, pad: string, root = false): string => {
    if (!s || typeof s !== 'object') return 'unknown';
    if (!root && typeof s.title === 'string' && named.has(s.title)) return typeName(s.title);
    if (s.const !== undefined) return JSON.stringify(s.const);
    if (s.enum) return s.enum.map((v) => JSON.stringify(v)).join(' | ') || 'never';
    const alts = s.anyOf ?? s.oneOf;
    if (alts) return alts.map((a) => wrap(ts(a, pad))).join(' | ') || 'never';
    if (s.allOf) return s.allOf.map((a) => wrap(ts(a, pad))).join(' & ') || 'unknown';
    const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : s.properties ? ['object'] : [];
    if (types.length === 0) return 'unknown';
    return types.map((t) => wrap(single(t, s, pad))).join(' | ');
  };
  /** Parenthesized when `t` is a union or intersection at its top level (before `[]` or inside a union). */
  const wrap = (t: string) => {
    let depth = 0;
    let quote = '';
    for (let i = 0; i < t.length; i++) {
      const c = t[i]!;
      if (quote) {
        if (c === '\\') i++;
        else if (c === quote) quote = '';
      } else if (c === '"' || c === "'") quote = c;
      else if ('{([<'.includes(c)) depth++;
      else if ('})]>'.includes(c)) depth--;
      else if (depth === 0 && (c === '|' || c === '&')) return `(${t})`;
    }
    return t;
  };
  const single = (t: string, s: Schema, pad: string): string => {
    switch (t) {
      case 'string':
        return 'string';
      case 'integer':
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array':
        return s.items ? `${wrap(ts(s.items, pad))}[]` : 'unknown[]';
      case 'object':
        return object(s, pad);
      default:
        return 'unknown';
    }
  };
  const object = (s: Schema, pad: string): string => {
    const props = Object.entries(s.properties ?? {});
    const extra = s.additionalProperties;
    if (props.length === 0) {
      if (extra === false) return 'Record<string, never>';
      if (extra && typeof extra === 'object') return `{ [key: string]: ${ts(extra, pad)} }`;
      return '{ [key: string]: unknown }';
    }
    const inner = `${pad}  `;
    const required = new Set(s.required ?? []);
    let out = '{\n';
    for (const [k, v] of props) {
      out += doc(v.description, inner);
      out += `${inner}${propKey(k)}${required.has(k) ? '' : '?'}: ${ts(v, inner)};\n`;
    }
    if (extra === true || (extra && typeof extra === 'object')) out += `${inner}[key: string]: unknown;\n`;
    return `${out}${pad}}`;
  };

  let out = `// Generated by sdk/scripts/generate-types.ts from the served OpenAPI document (${source}),\n`;
  out += `// ${document.info.title} ${document.info.version}. Do not edit: run \`npm run sdk:types\`.\n\n`;
  for (const [title, { schema, description }] of named) {
    const body = ts(schema, '', true);
    out += doc(description, '');
    out +=
      body.startsWith('{\n') && wrap(body) === body
        ? `export interface ${typeName(title)} ${body}\n\n`
        : `export type ${typeName(title)} = ${body};\n\n`;
  }

  // 3. Operations.
  out += '/** Every operation of the API, keyed `"METHOD /path"`. */\nexport interface Operations {\n';
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      const pad = '    ';
      out += doc([op.summary, op.description].filter(Boolean).join('\n\n'), '  ');
      out += `  ${JSON.stringify(`${method.toUpperCase()} ${path}`)}: {\n`;
      for (const where of ['path', 'query', 'header'] as const) {
        const ps = (op.parameters ?? []).filter((p) => p.in === where);
        const label = where === 'header' ? 'headers' : where;
        if (ps.length === 0) {
          out += `${pad}${label}: Record<string, never>;\n`;
          continue;
        }
        out += `${pad}${label}: {\n`;
        for (const p of ps) {
          const optional = !p.required || (where !== 'path' && p.schema?.default !== undefined);
          out += doc(p.description ?? p.schema?.description, `${pad}  `);
          out += `${pad}  ${propKey(p.name)}${optional ? '?' : ''}: ${ts(p.schema, `${pad}  `)};\n`;
        }
        out += `${pad}};\n`;
      }
      const bodySchema = op.requestBody?.content?.['application/json']?.schema;
      out += `${pad}body: ${bodySchema ? ts(bodySchema, pad) + (op.requestBody?.required ? '' : ' | undefined') : 'never'};\n`;
      out += `${pad}responses: {\n`;
      for (const [status, res] of Object.entries(op.responses ?? {})) {
        const rs = res.content?.['application/json']?.schema;
        out += doc(res.description, `${pad}  `);
        out += `${pad}  ${/^\d+$/.test(status) ? status : JSON.stringify(status)}: ${rs ? ts(rs, `${pad}  `) : 'void'};\n`;
      }
      out += `${pad}};\n  };\n`;
    }
  }
  out += '}\n';
  return out;
}
