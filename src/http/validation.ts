import { Ajv, type ErrorObject } from 'ajv';
import addFormats from 'ajv-formats';
import type { FastifyInstance, FastifySchemaValidationError } from 'fastify';

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

export function installValidators(app: FastifyInstance): void {
  const strict = makeAjv(false);
  const coercing = makeAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? strict : coercing).compile(schema as object),
  );
}

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

/** The one-line message of a validation error: the first field's problem, and how many more there are. */
export function validationMessage(fields: { field: string; message: string }[]): string {
  const first = fields[0];
  if (!first) return 'Invalid request';
  const more = fields.length - 1;
  return more > 0
    ? `${first.field} ${first.message} (and ${more} more problem${more > 1 ? 's' : ''}: see error.details.fields)`
    : `${first.field} ${first.message}`;
}

function decodePointer(s: string): string {
  return s.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * JSON bodies with Fastify's safe parser (prototype poisoning refused), except that an empty body
 * sent with `Content-Type: application/json` counts as no body: routes whose body is optional
 * (cancel-upload, extraction commit) accept it, and routes that need one answer "body is required".
 */
export function installJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    return parse(request, body as string, done);
  });
}
