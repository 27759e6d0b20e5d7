import { Type } from 'typebox';

/** A UUID string (path parameters, ids in bodies). */
export const Uuid = Type.String({ format: 'uuid' });

/** The response of a 204 to a DELETE: no body. */
export const Deleted = { type: 'null', description: 'Deleted' } as const;

/** A string enum (one `enum` keyword in JSON Schema and OpenAPI), typed as the union of its values. */
export const StringEnum = <T extends readonly string[]>(
  values: T,
  o: { default?: T[number]; description?: string } = {},
) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...o });

const UNPAIRED_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Why a text value cannot be stored, or undefined when it can. NUL cannot be stored in
 * PostgreSQL text and an unpaired surrogate cannot be encoded as UTF-8, so both are refused on
 * every database; `notBlank` fields must contain a non-whitespace character.
 */
export function textProblem(value: string, notBlank = false): string | undefined {
  if (value.includes('\u0000')) return 'must not contain NUL characters';
  if (UNPAIRED_SURROGATE.test(value)) return 'must not contain unpaired surrogates';
  if (notBlank && value.trim() === '') return 'must not be blank';
  return undefined;
}
