import type { Migration } from 'kysely';
import * as m0001 from './0001_access.ts';

/**
 * Every migration, in order. Names sort in the order they run; a released migration never changes.
 * Feature modules add theirs here.
 */
export const migrations: Record<string, Migration> = {
  '0001_access': m0001,
};
