import { describe, expect, it } from 'vitest';
import type { RouteSchemas } from './route-catalog.ts';
import { progressOf, statusOf, TASK_KINDS } from './tasks.ts';
import {
  BadPathArgument,
  compactSchema,
  inputSchemaOf,
  pathSegment,
  requestOf,
  ROUTE_TOOLS,
  type RouteTool,
  shortText,
  UnknownArguments,
} from './tools.ts';

const route: RouteSchemas = {
  method: 'PUT',
  url: '/v1/brands/:brandId/things/:id',
  params: {
    type: 'object',
    properties: { brandId: { type: 'string' }, id: { type: 'string' } },
    required: ['brandId', 'id'],
  },
  querystring: { type: 'object', properties: { page: { type: 'integer' } } },
  body: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'], additionalProperties: false },
};
const tool: RouteTool = {
  name: 'things_update',
  method: 'PUT',
  url: route.url,
  about: 'x',
  headers: { ifMatch: { header: 'if-match', schema: { type: 'string' } } },
};

describe('route tools', () => {
  it('merge params, query, body and header members into one closed object schema', () => {
    const schema = inputSchemaOf(route, { ifMatch: { type: 'string' } });
    expect(Object.keys(schema.properties ?? {})).toEqual(['brandId', 'id', 'page', 'name', 'ifMatch']);
    expect(schema.required).toEqual(['brandId', 'id', 'name']);
    expect(schema.additionalProperties).toBe(false);
    expect(() => inputSchemaOf({ ...route, querystring: { type: 'object', properties: { name: {} } } })).toThrow(
      /twice/,
    );
  });

  it('split a call back into path (encoded), query, body and headers, and refuse unknown members', () => {
    const req = requestOf(tool, route, { brandId: 'a/b', id: '1', page: 2, name: 'N', ifMatch: '"3"' });
    expect(req).toEqual({
      method: 'PUT',
      url: '/v1/brands/a%2Fb/things/1?page=2',
      body: { name: 'N' },
      headers: { 'if-match': '"3"' },
    });
    expect(() => requestOf(tool, route, { brandId: 'a', id: '1', name: 'N', other: 1 })).toThrow(UnknownArguments);
    const get = requestOf(
      { ...tool, method: 'GET' },
      { ...route, method: 'GET', body: undefined },
      { brandId: 'a', id: '1' },
    );
    expect(get).not.toHaveProperty('body');
  });

  it('rename bare ids, fill defaults (then optional), page lists small, and take view aside', () => {
    const renamed: RouteTool = { ...tool, rename: { id: 'thingId' }, defaults: { name: 'Default' }, list: true };
    const listRoute = {
      ...route,
      querystring: { type: 'object', properties: { page: { type: 'integer' }, limit: { type: 'integer' } } },
    };
    const schema = inputSchemaOf(listRoute, {}, renamed);
    expect(Object.keys(schema.properties ?? {})).toEqual(['brandId', 'thingId', 'page', 'limit', 'name']);
    expect(schema.required).toEqual(['brandId', 'thingId']);
    const req = requestOf(renamed, listRoute, { brandId: 'b', thingId: 't', view: 'full' });
    expect(req).toMatchObject({ url: '/v1/brands/b/things/t?limit=5', body: { name: 'Default' } });
    expect(requestOf(renamed, listRoute, { brandId: 'b', thingId: 't', limit: 50 }).url).toMatch(/limit=50/);
    expect(() => requestOf(renamed, listRoute, { brandId: 'b', id: 't' })).toThrow(UnknownArguments);
  });

  it('list compact schemas: one sentence of description, nested objects collapsed, X-or-null as one type', () => {
    const compact = compactSchema({
      type: 'object',
      properties: {
        prompt: { type: 'string', minLength: 1, maxLength: 2500, description: 'What to show. More words here.' },
        asset: { anyOf: [{ type: 'string', format: 'uuid' }, { type: 'null' }] },
        dna: { type: 'object', properties: { visual: { type: 'object', properties: { a: { type: 'string' } } } } },
        files: { type: 'array', items: { type: 'object', properties: { fileName: { type: 'string' } } } },
        page: { type: 'integer', minimum: 1, maximum: 1000, default: 1 },
      },
      required: ['prompt'],
    }) as Record<string, Record<string, Record<string, unknown>>>;
    expect(compact.properties!.prompt).toEqual({ type: 'string', maxLength: 2500, description: 'What to show.' });
    // Ids are named for what they are: no uuid format to repeat.
    expect(compact.properties!.asset).toEqual({ type: ['string', 'null'] });
    expect(compact.properties!.dna).toEqual({ type: 'object', properties: { visual: { type: 'object' } } });
    expect(compact.properties!.files).toMatchObject({ items: { properties: { fileName: { type: 'string' } } } });
    expect(compact.properties!.page).toEqual({ type: 'integer', default: 1 });
    expect(shortText('x'.repeat(200)).length).toBeLessThanOrEqual(90);
    // A long sentence ends at a clause or a word, never inside one.
    const long =
      'true only when every prompt is exactly the enhancedPrompt of a completed enhancement, unchanged by you';
    expect(shortText(long)).toBe(
      'true only when every prompt is exactly the enhancedPrompt of a completed enhancement',
    );
    expect(shortText(`${'word '.repeat(30)}end.`)).toMatch(/^(word )+word…$/);
  });

  it('have unique names, and poll only kinds that exist', () => {
    expect(new Set(ROUTE_TOOLS.map((x) => x.name)).size).toBe(ROUTE_TOOLS.length);
    for (const x of ROUTE_TOOLS) if (x.poll) expect(TASK_KINDS).toHaveProperty(x.poll);
  });
});

describe('tasks', () => {
  it('read the status of plain and wrapped bodies', () => {
    expect(statusOf({ status: 'completed' })).toBe('completed');
    expect(statusOf({ status: 'success', data: { status: 'ready' } })).toBe('ready');
    expect(statusOf({ data: [{ status: 'pending' }] })).toBeUndefined();
    expect(statusOf(null)).toBeUndefined();
  });

  it('report progress from the share of terminal variations, 1 once done', () => {
    expect(progressOf({ status: 'completed' })).toBe(1);
    expect(progressOf({ status: 'processing', variations: [{ status: 'completed' }, { status: 'processing' }] })).toBe(
      0.5,
    );
    expect(progressOf({ status: 'processing', variations: [{ status: 'failed' }] })).toBe(0.99);
    expect(progressOf({ status: 'pending' })).toBe(0);
  });
});

describe('pathSegment', () => {
  it('encodes ids and refuses what is not one (dot segments, empty, not text)', () => {
    expect(pathSegment('id', 'a/b c')).toBe('a%2Fb%20c');
    expect(pathSegment('id', '%2e%2e')).toBe('%252e%252e');
    for (const bad of ['', '.', '..', undefined, null, {}])
      expect(() => pathSegment('id', bad)).toThrow(BadPathArgument);
  });
});
