/**
 * Portable column conventions, the same on SQLite and PostgreSQL:
 * ids are UUID text, timestamps are ISO 8601 UTC text with milliseconds (they sort as text),
 * booleans are integers 0/1, structured values are JSON text.
 */
export const toJson = (value: unknown): string => JSON.stringify(value);

export function fromJson<T>(text: string | null | undefined, fallback: T): T {
  if (text === null || text === undefined || text === '') return fallback;
  return JSON.parse(text) as T;
}

export const toBool = (v: boolean): number => (v ? 1 : 0);
export const fromBool = (v: number | boolean | null | undefined): boolean => v === 1 || v === true;

/** Number of rows an UPDATE/DELETE touched, from Kysely's result on either dialect. */
export function affected(result: { numUpdatedRows?: bigint; numDeletedRows?: bigint }): number {
  return Number(result.numUpdatedRows ?? result.numDeletedRows ?? 0n);
}
