import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where the CLI finds its server and key. */
export interface ClientSettings {
  url: string;
  apiKey: string;
  /** Where they came from, for messages: `env`, or `profile NAME (FILE)`. */
  source: string;
}

/** A missing or unreadable configuration (exit 1). */
export class ClientConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ClientConfigError';
  }
}

interface ProfileFile {
  /** The profile used when neither --profile nor ATELIER_PROFILE names one (else `default`). */
  defaultProfile?: string;
  profiles?: Record<string, { url?: string; apiKey?: string }>;
}

/** ATELIER_CONFIG, else $XDG_CONFIG_HOME/atelier/config.json, else ~/.config/atelier/config.json. */
export function configPath(env: NodeJS.ProcessEnv): string {
  if (env.ATELIER_CONFIG) return path.resolve(env.INIT_CWD ?? process.cwd(), env.ATELIER_CONFIG);
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'atelier', 'config.json');
}

function readProfiles(file: string): ProfileFile | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new ClientConfigError(`cannot read ${file}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text) as ProfileFile;
  } catch {
    throw new ClientConfigError(`${file} is not valid JSON`);
  }
}

/**
 * The server and key, in this order:
 *  1. `--profile NAME` (or ATELIER_PROFILE): that profile of the config file, which must exist;
 *  2. ATELIER_URL and ATELIER_API_KEY (each one also overrides the default profile's value);
 *  3. the config file's default profile (`defaultProfile`, else the one named `default`).
 * Config file: `{ "defaultProfile": "local", "profiles": { "local": { "url": "http://localhost:8080", "apiKey": "atl_…" } } }`.
 */
export function resolveSettings(env: NodeJS.ProcessEnv, profileFlag: string | undefined): ClientSettings {
  const file = configPath(env);
  const named = profileFlag ?? env.ATELIER_PROFILE;
  const data = readProfiles(file);
  if (named) {
    const p = data?.profiles?.[named];
    if (!p) throw new ClientConfigError(`profile "${named}" not found in ${file}`);
    if (!p.url || !p.apiKey) throw new ClientConfigError(`profile "${named}" in ${file} needs "url" and "apiKey"`);
    return { url: p.url, apiKey: p.apiKey, source: `profile ${named} (${file})` };
  }
  const fallbackName = data?.defaultProfile ?? 'default';
  const fallback = data?.profiles?.[fallbackName];
  const url = env.ATELIER_URL || fallback?.url;
  const apiKey = env.ATELIER_API_KEY || fallback?.apiKey;
  if (!url || !apiKey) {
    throw new ClientConfigError(
      `no server configured: set ATELIER_URL and ATELIER_API_KEY, or add a profile to ${file} ` +
        `({"profiles":{"default":{"url":"http://localhost:8080","apiKey":"atl_…"}}})`,
    );
  }
  const fromEnv = env.ATELIER_URL && env.ATELIER_API_KEY;
  return { url, apiKey, source: fromEnv ? 'env' : `profile ${fallbackName} (${file})` };
}
