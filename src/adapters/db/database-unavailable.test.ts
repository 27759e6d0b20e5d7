import { describe, expect, it } from 'vitest';
import { databaseUnavailableMessage, urlWithoutCredentials } from './database-unavailable.ts';

const coded = (code: string, message = code) => Object.assign(new Error(message), { code });
const pg = { databaseUrl: 'postgres://atelier:s3cret@db.internal:5432/atelier?password=again', dataDir: '/srv/data' };
const sqlite = { databaseUrl: undefined, dataDir: '/srv/data' };

describe('a database that cannot be reached or opened', () => {
  it('shows URLs without user, password or query', () => {
    expect(urlWithoutCredentials('postgres://atelier:s3cret@db.internal:5432/atelier?password=again')).toBe(
      'postgres://db.internal:5432/atelier',
    );
    expect(urlWithoutCredentials('not a url')).toBeUndefined();
  });

  it('names DATABASE_URL (no credentials) and what failed, through the migration error wrapping it', () => {
    const wrapped = new Error('migration  failed: Error: connect ECONNREFUSED', { cause: coded('ECONNREFUSED') });
    expect(databaseUnavailableMessage(pg, wrapped)).toBe(
      'cannot reach the database at DATABASE_URL=postgres://db.internal:5432/atelier (ECONNREFUSED); is PostgreSQL running?',
    );
    // Node's connection attempts to each address of a host fail together.
    const both = new AggregateError([coded('ECONNREFUSED'), coded('ECONNREFUSED')]);
    expect(databaseUnavailableMessage(pg, both)).toContain('(ECONNREFUSED); is PostgreSQL running?');
    expect(databaseUnavailableMessage(pg, coded('ENOTFOUND'))).toBe(
      'cannot reach the database at DATABASE_URL=postgres://db.internal:5432/atelier (ENOTFOUND); is the host name right?',
    );
    expect(databaseUnavailableMessage(pg, coded('28P01', 'password authentication failed for user "atelier"'))).toBe(
      'cannot use the database at DATABASE_URL=postgres://db.internal:5432/atelier: password authentication failed for user "atelier" (28P01)',
    );
    expect(databaseUnavailableMessage(pg, coded('3D000', 'database "atelier" does not exist'))).toContain(
      'does not exist (3D000)',
    );
    for (const err of [coded('ECONNREFUSED'), coded('28P01'), coded('3D000')]) {
      expect(databaseUnavailableMessage(pg, err)).not.toMatch(/s3cret|again/);
    }
  });

  it('names ATELIER_DATA_DIR when the SQLite file or its folder cannot be opened', () => {
    expect(databaseUnavailableMessage(sqlite, coded('EEXIST'))).toBe(
      'cannot open the data folder ATELIER_DATA_DIR=/srv/data (EEXIST): it is not a folder',
    );
    expect(databaseUnavailableMessage(sqlite, coded('EACCES'))).toBe(
      'cannot open the SQLite database /srv/data/atelier.db in ATELIER_DATA_DIR=/srv/data (EACCES); can this user write there?',
    );
    expect(databaseUnavailableMessage(sqlite, coded('SQLITE_READONLY_DBMOVED'))).toContain(
      'can this user write there?',
    );
    expect(databaseUnavailableMessage(sqlite, coded('SQLITE_NOTADB'))).toContain('is not a SQLite database');
    expect(databaseUnavailableMessage(sqlite, coded('SQLITE_FULL'))).toContain('the disk is full');
    expect(databaseUnavailableMessage(sqlite, coded('SQLITE_IOERR_WRITE'))).toContain('ATELIER_DATA_DIR=/srv/data');
  });

  it('leaves other failures alone: a failing migration is a bug and keeps its stack', () => {
    expect(databaseUnavailableMessage(pg, coded('42P01', 'relation "x" does not exist'))).toBeUndefined();
    expect(databaseUnavailableMessage(sqlite, coded('SQLITE_ERROR', 'near "x": syntax error'))).toBeUndefined();
    expect(databaseUnavailableMessage(sqlite, new Error('no code'))).toBeUndefined();
    expect(databaseUnavailableMessage(sqlite, 'a string')).toBeUndefined();
  });
});
