import type { FastifyInstance } from 'fastify';
import { makeAjv } from '../adapters/validation/json-schema.ts';

/** Request validation with makeAjv: bodies strict; query strings, params and headers coercing. */
export function installValidators(app: FastifyInstance): void {
  const strict = makeAjv(false);
  const coercing = makeAjv(true);
  app.setValidatorCompiler(({ schema, httpPart }) =>
    (httpPart === 'body' ? strict : coercing).compile(schema as object),
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
