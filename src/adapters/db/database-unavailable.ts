import path from 'node:path';

/**
 * The database the settings name could not be reached or opened at start (PostgreSQL down, a
 * wrong host or login, a data folder that is a file or not writable). Its message is one line for
 * the operator, naming the setting to look at; the CLI prints it without a stack trace.
 */
export class DatabaseUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'DatabaseUnavailable';
  }
}

/**
 * A database URL as it may be shown: scheme, host, port and database name, without the user, the
 * password or the query (which may carry a password too). Undefined when it is not a URL. Pure.
 */
export function urlWithoutCredentials(url: string): string | undefined {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return undefined;
  }
}

// Network failures on the way to PostgreSQL, and the server's answers that mean "not now".
const UNREACHABLE = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EHOSTDOWN']);
const UNKNOWN_HOST = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME']);
// Folder and file errors (mkdir of the data folder), and SQLite's when it opens the file.
const NOT_A_FOLDER = new Set(['EEXIST', 'ENOTDIR']);
const NOT_WRITABLE = new Set(['EACCES', 'EPERM', 'EROFS', 'SQLITE_CANTOPEN', 'SQLITE_PERM', 'SQLITE_READONLY']);
const NOT_A_DATABASE = new Set(['SQLITE_NOTADB', 'SQLITE_CORRUPT']);
const DISK_FULL = new Set(['ENOSPC', 'SQLITE_FULL']);

interface Coded {
  code: string;
  message: string;
}

/** The first error with a string `code` in `err`, its causes and an AggregateError's members. */
function codedError(err: unknown, depth = 0): Coded | undefined {
  if (typeof err !== 'object' || err === null || depth > 5) return undefined;
  const e = err as { code?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
  if (typeof e.code === 'string' && e.code) return { code: e.code, message: String(e.message ?? '') };
  for (const inner of [e.cause, ...(Array.isArray(e.errors) ? e.errors : [])]) {
    const found = codedError(inner, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/**
 * The one line that says why the database of these settings cannot be used, when `err` (thrown
 * while opening or migrating it) is about reaching or opening it; undefined for anything else (a
 * failing migration is a bug, and keeps its stack). Credentials never appear. Pure.
 */
export function databaseUnavailableMessage(
  settings: { databaseUrl?: string | undefined; dataDir: string },
  err: unknown,
): string | undefined {
  const coded = codedError(err);
  if (!coded) return undefined;
  const { code } = coded;
  // SQLite's extended codes (SQLITE_READONLY_DBMOVED, SQLITE_IOERR_WRITE…) by their primary code.
  const family = code.startsWith('SQLITE_') ? code.split('_').slice(0, 2).join('_') : code;
  if (settings.databaseUrl) {
    const where = `the database at DATABASE_URL=${urlWithoutCredentials(settings.databaseUrl) ?? '(not a URL)'}`;
    if (UNREACHABLE.has(code)) return `cannot reach ${where} (${code}); is PostgreSQL running?`;
    if (UNKNOWN_HOST.has(code)) return `cannot reach ${where} (${code}); is the host name right?`;
    // PostgreSQL's SQLSTATE: 08 connection exception, 28 invalid authorization, 3D000 no such
    // database, 57P03 starting up or shutting down, 53300 too many connections.
    if (/^(08|28)[0-9A-Z]{3}$/.test(code) || ['3D000', '57P03', '53300'].includes(code)) {
      return `cannot use ${where}: ${coded.message} (${code})`;
    }
    return undefined;
  }
  const where = `ATELIER_DATA_DIR=${settings.dataDir}`;
  const file = path.join(settings.dataDir, 'atelier.db');
  if (NOT_A_FOLDER.has(code)) return `cannot open the data folder ${where} (${code}): it is not a folder`;
  if (NOT_WRITABLE.has(family)) {
    return `cannot open the SQLite database ${file} in ${where} (${code}); can this user write there?`;
  }
  if (NOT_A_DATABASE.has(family)) {
    return `cannot open the SQLite database ${file} in ${where} (${code}): the file is not a SQLite database`;
  }
  if (DISK_FULL.has(family)) return `cannot write the SQLite database in ${where} (${code}): the disk is full`;
  if (family === 'SQLITE_IOERR') return `cannot read or write the SQLite database ${file} in ${where} (${code})`;
  return undefined;
}
