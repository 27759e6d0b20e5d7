import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifySchemaValidationError } from 'fastify';

/**
 * JSON Schema validation with Ajv, one configuration for request validation (http/validation.ts)
 * and job payloads (jobs/registry.ts), and the `{ field, message }` description of its errors.
 */

/**
 * Request validation. Bodies are validated strictly (a string is never coerced to a number, an
 * unknown member is an error that names it); query strings, params and headers coerce, since
 * everything in a URL is text. Job payloads are validated like bodies (jobs/registry.ts).
 */
export function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    coerceTypes: coerce ? 'array' : false,
    useDefaults: true,
    removeAdditional: false,
    // Every bad field at once (schemas bound their arrays and strings, so the work stays bounded).
    allErrors: true,
    strict: false,
  });
  addFormats.default(ajv);
  return ajv;
}

/** Field-path prefixes of Fastify's request parts; another context (a job's `payload`) is used as given. */
const PART_NAMES: Record<string, string> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

/** At most this many fields are reported for one request. */
export const MAX_REPORTED_FIELDS = 50;

/**
 * Turns Ajv errors into `{ field, message }` pairs with a dotted field path such as
 * `body.files.0.fileName`: one per field and message, at most MAX_REPORTED_FIELDS.
 */
export function describeValidation(
  errors: FastifySchemaValidationError[] | ErrorObject[],
  context: string | undefined,
): { field: string; message: string }[] {
  const part = PART_NAMES[context ?? 'body'] ?? context ?? 'body';
  const seen = new Set<string>();
  const out: { field: string; message: string }[] = [];
  for (const item of errors.map((e) => {
    const segs = (e.instancePath ?? '').split('/').filter(Boolean).map(decodePointer);
    const params = (e.params ?? {}) as Record<string, unknown>;
    let message = e.message ?? 'is invalid';
    if (typeof params.missingProperty === 'string') {
      segs.push(params.missingProperty);
      message = 'is required';
    } else if (typeof params.additionalProperty === 'string') {
      segs.push(params.additionalProperty);
      message = 'is not a known field';
    } else if (Array.isArray(params.allowedValues)) {
      message = `must be one of: ${params.allowedValues.map(String).join(', ')}`;
    }
    return { field: [part, ...segs].join('.'), message };
  })) {
    const key = `${item.field}\u0000${item.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(item);
    if (out.length === MAX_REPORTED_FIELDS) break;
  }
  return out;
}

function decodePointer(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}
