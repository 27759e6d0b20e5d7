import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { databaseMismatch, databaseOf, linkBaseUrl, readServerInfo, recordServerInfo } from './server-info.ts';

describe('server-info (what serve records for the admin CLI)', () => {
  it('names the database without credentials', () => {
    expect(databaseOf({ dataDir: '/srv/data', databaseUrl: undefined })).toBe('SQLite /srv/data/atelier.db');
    expect(
      databaseOf({ dataDir: 'x', databaseUrl: 'postgres://atelier:s3cret@db.internal:5432/atelier?ssl=true' }),
    ).toBe('PostgreSQL postgres://db.internal:5432/atelier');
    expect(databaseOf({ dataDir: 'x', databaseUrl: 'not a url' })).toBe('PostgreSQL (DATABASE_URL)');
  });

  it('refuses only when the recorded server uses another database', () => {
    const pg = 'PostgreSQL postgres://db:5432/atelier';
    expect(databaseMismatch(pg, {})).toBeUndefined();
    expect(databaseMismatch(pg, { database: pg })).toBeUndefined();
    const problem = databaseMismatch('SQLite /srv/data/atelier.db', { database: pg });
    expect(problem).toContain('would use SQLite /srv/data/atelier.db');
    expect(problem).toContain(`uses ${pg}`);
    expect(problem).toContain('DATABASE_URL');
  });

  it('records and reads back the public URL and the database; a damaged file reads as nothing', () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-info-'));
    try {
      expect(readServerInfo({ dataDir })).toEqual({});
      recordServerInfo({ dataDir, databaseUrl: undefined, publicUrl: 'https://atelier.example' });
      expect(readServerInfo({ dataDir })).toEqual({
        publicUrl: 'https://atelier.example',
        database: `SQLite ${path.join(dataDir, 'atelier.db')}`,
      });
      expect(linkBaseUrl({ dataDir, publicUrl: 'http://localhost:8080' }, {})).toBe('https://atelier.example');
      expect(linkBaseUrl({ dataDir, publicUrl: 'http://mine' }, { ATELIER_PUBLIC_URL: 'http://mine' })).toBe(
        'http://mine',
      );
      fs.writeFileSync(path.join(dataDir, 'server.json'), '{not json');
      expect(readServerInfo({ dataDir })).toEqual({});
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
