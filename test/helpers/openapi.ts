import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import type { LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';

interface OpenApiResponse {
  headers?: Record<string, unknown>;
  content?: Record<string, { schema: object }>;
}
export interface OpenApiDoc {
  paths: Record<string, Record<string, { responses: Record<string, OpenApiResponse> }>>;
}

/**
 * Checks real answers against the app's own /v1/openapi.json: the status is published for the
 * route (`path` in OpenAPI form, `/v1/things/{id}`), its headers are sent, its JSON body validates.
 */
export function openApiChecker(doc: OpenApiDoc) {
  const ajv = new Ajv({ strict: false, allErrors: true });
  addFormats.default(ajv);
  const compiled = new Map<string, ValidateFunction>();
  return (method: string, path: string, res: LightMyRequestResponse) => {
    const where = `${method} ${path} → ${res.statusCode} ${res.body.slice(0, 300)}`;
    const op = doc.paths[path]?.[method.toLowerCase()];
    expect(op, `${method} ${path} is not published`).toBeDefined();
    const entry = op?.responses[String(res.statusCode)];
    expect(entry, `status not published: ${where}`).toBeDefined();
    for (const header of Object.keys(entry?.headers ?? {})) {
      expect(res.headers[header.toLowerCase()], `header ${header} missing: ${where}`).toBeDefined();
    }
    const schema = entry?.content?.['application/json']?.schema;
    if (res.body === '' || !schema || !String(res.headers['content-type']).startsWith('application/json')) return;
    const id = `${method} ${path} ${res.statusCode}`;
    let validate = compiled.get(id);
    if (!validate) {
      validate = ajv.compile(schema);
      compiled.set(id, validate);
    }
    const ok = validate(res.json());
    expect(ok ? [] : validate.errors, where).toEqual([]);
  };
}
