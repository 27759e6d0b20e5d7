import { Type } from 'typebox';

/** A UUID string (path parameters, ids in bodies). */
export const Uuid = Type.String({ format: 'uuid' });

/** A string enum (one `enum` keyword in JSON Schema and OpenAPI), typed as the union of its values. */
export const StringEnum = <T extends readonly string[]>(
  values: T,
  o: { default?: T[number]; description?: string } = {},
) => Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...o });
