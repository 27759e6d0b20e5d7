import fs from 'node:fs';
import path from 'node:path';
import { urlWithoutCredentials } from '../adapters/db/database-unavailable.ts';
import type { Config } from '../config.ts';

/**
 * What `serve` records in its data folder for the admin CLI of the same install (server.json): the
 * public URL (for the links the CLI prints) and the database it uses (so an admin command that
 * would write elsewhere is refused instead of making a key the server does not know).
 */
export interface ServerInfo {
  publicUrl?: string;
  database?: string;
}

export const serverInfoFile = (config: Pick<Config, 'dataDir'>) => path.join(config.dataDir, 'server.json');

/**
 * The database a process with these settings uses, in words, without credentials:
 * `PostgreSQL postgres://host:5432/name` or `SQLite /abs/data/atelier.db`.
 */
export function databaseOf(config: Pick<Config, 'dataDir' | 'databaseUrl'>): string {
  if (!config.databaseUrl) return `SQLite ${path.resolve(config.dataDir, 'atelier.db')}`;
  return `PostgreSQL ${urlWithoutCredentials(config.databaseUrl) ?? '(DATABASE_URL)'}`;
}

export function recordServerInfo(config: Pick<Config, 'dataDir' | 'databaseUrl' | 'publicUrl'>): void {
  fs.mkdirSync(config.dataDir, { recursive: true });
  const info: ServerInfo = { publicUrl: config.publicUrl, database: databaseOf(config) };
  fs.writeFileSync(serverInfoFile(config), JSON.stringify(info));
}

export function readServerInfo(config: Pick<Config, 'dataDir'>): ServerInfo {
  try {
    const info = JSON.parse(fs.readFileSync(serverInfoFile(config), 'utf8')) as Record<string, unknown>;
    return {
      ...(typeof info.publicUrl === 'string' ? { publicUrl: info.publicUrl } : {}),
      ...(typeof info.database === 'string' ? { database: info.database } : {}),
    };
  } catch {
    return {};
  }
}

/**
 * The public URL for links the admin CLI prints: ATELIER_PUBLIC_URL when this command has it,
 * else the one the server running on the same data folder recorded, else the default.
 */
export function linkBaseUrl(
  config: Pick<Config, 'dataDir' | 'publicUrl'>,
  env: NodeJS.ProcessEnv,
  server: ServerInfo = readServerInfo(config),
): string {
  if (env.ATELIER_PUBLIC_URL) return config.publicUrl;
  return server.publicUrl ?? config.publicUrl;
}

/**
 * Why an admin command must not run here (pure): the server recorded in this data folder uses
 * another database than this command would (a terminal without the server's DATABASE_URL writes to
 * the embedded SQLite file, and the key it prints gets 401 from the server). Undefined when they
 * agree or no server was recorded.
 */
export function databaseMismatch(mine: string, info: ServerInfo): string | undefined {
  if (!info.database || info.database === mine) return undefined;
  return (
    `this command would use ${mine}, but the server of this install (its data folder's server.json) ` +
    `uses ${info.database}. Run it with the server's settings (DATABASE_URL…), or set ATELIER_DATA_DIR ` +
    'to another folder for a separate install (a server that now runs otherwise records itself when it starts).'
  );
}

/** An admin command refused because it would use another database than this install's server. */
export class InstallMismatch extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InstallMismatch';
  }
}
