import type { FastifyInstance } from 'fastify';
import fastJson from 'fast-json-stringify';
import type { Ajv } from 'ajv';
import { makeAjv } from '../adapters/validation/json-schema.ts';

/**
 * Compiled validators and serializers, kept for the process by the schema's JSON: an app built
 * again in the same process (the tests build hundreds; `serve` builds one) compiles none of its
 * ~150 route schemas twice, which was most of the ~0.5 s an app took to build. The schemas have
 * no `$id` and there are no shared schemas (`addSchema`), so a schema's JSON decides its code.
 */
const compiled = new Map<string, unknown>();
let ajvs: { strict: Ajv; coercing: Ajv } | undefined;

function once<T>(key: string, compile: () => T): T {
  let fn = compiled.get(key) as T | undefined;
  if (fn === undefined) {
    fn = compile();
    compiled.set(key, fn);
  }
  return fn;
}

/**
 * Request validation with makeAjv: bodies strict; query strings, params and headers coercing.
 * Responses with fast-json-stringify as Fastify's own serializer compiler does (no options, no
 * shared schemas).
 */
export function installValidators(app: FastifyInstance): void {
  ajvs ??= { strict: makeAjv(false), coercing: makeAjv(true) };
  const { strict, coercing } = ajvs;
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const ajv = httpPart === 'body' ? strict : coercing;
    return once(`${ajv === strict ? 'v' : 'c'}${JSON.stringify(schema)}`, () => ajv.compile(schema as object));
  });
  app.setSerializerCompiler(({ schema }) =>
    once(`s${JSON.stringify(schema)}`, () => fastJson(schema as Parameters<typeof fastJson>[0])),
  );
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
