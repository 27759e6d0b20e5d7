import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateTypes } from '../scripts/codegen.ts';
import { servedDocument } from '../scripts/served-document.ts';

const CHECKED_IN = path.resolve(import.meta.dirname, '../src/openapi-types.ts');

describe('SDK types generated from the OpenAPI document', () => {
  it('the checked-in sdk/src/openapi-types.ts is what the served document gives (run `npm run sdk:types`)', async () => {
    const expected = generateTypes(await servedDocument());
    const actual = fs.readFileSync(CHECKED_IN, 'utf8');
    // A plain equality first: a diff of 80 kB is unreadable, so name the first differing line.
    if (actual !== expected) {
      const a = actual.split('\n');
      const e = expected.split('\n');
      const i = e.findIndex((line, n) => line !== a[n]);
      expect.fail(
        `sdk/src/openapi-types.ts is stale (first difference at line ${i + 1}: ` +
          `checked in ${JSON.stringify(a[i])}, served ${JSON.stringify(e[i])}); run \`npm run sdk:types\``,
      );
    }
  });

  it('generates named types, operation keys and optional parameters with defaults', () => {
    const text = generateTypes({
      openapi: '3.1.0',
      info: { title: 'T', version: '1' },
      paths: {
        '/v1/things/{id}': {
          get: {
            summary: 'Get a thing',
            parameters: [
              { in: 'path', name: 'id', required: true, schema: { type: 'string' } },
              { in: 'query', name: 'limit', required: true, schema: { type: 'integer', default: 20 } },
            ],
            responses: {
              200: {
                content: {
                  'application/json': {
                    schema: {
                      title: 'Thing',
                      type: 'object',
                      required: ['id', 'tags'],
                      properties: {
                        id: { type: 'string' },
                        tags: { type: 'array', items: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
                        kind: { enum: ['a', 'b'] },
                      },
                    },
                  },
                },
              },
              404: {
                content: { 'application/json': { schema: { title: 'Error', type: 'object', properties: {} } } },
              },
            },
          },
        },
      },
    });
    expect(text).toContain('export interface Thing {');
    expect(text).toContain('tags: (string | null)[];');
    expect(text).toContain('kind?: "a" | "b";');
    expect(text).toContain('export type ErrorBody = { [key: string]: unknown };');
    expect(text).toContain('"GET /v1/things/{id}": {');
    expect(text).toContain('limit?: number;');
    expect(text).toContain('200: Thing;');
    expect(text).toContain('404: ErrorBody;');
  });
});
