/**
 * Reading settings from the environment: what src/config.ts and the engine providers' settings
 * parsers (./provider-registry.ts) share. Empty values count as unset; a bad value throws a
 * ConfigError naming the variable.
 */

export type Env = Readonly<Record<string, string | undefined>>;

/** A setting with a bad value; the start stops with this message, which names the variable. */
export class ConfigError extends Error {
  readonly setting: string;

  constructor(setting: string, message: string) {
    super(`Invalid setting ${setting}: ${message}`);
    this.setting = setting;
    this.name = 'ConfigError';
  }
}

/** The trimmed value, or undefined when unset or blank. */
export function str(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === '' ? undefined : v.trim();
}

/** A whole number in min..max; `def` when unset. */
export function int(env: Env, name: string, def: number, min: number, max: number): number {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (!/^\d+$/.test(raw)) throw new ConfigError(name, `expected a whole number, got "${raw}"`);
  const n = Number(raw);
  if (n < min || n > max) throw new ConfigError(name, `expected ${min}..${max}, got ${n}`);
  return n;
}

/** A whole number in min..max, or undefined when unset. */
export function optionalInt(env: Env, name: string, min: number, max: number): number | undefined {
  return str(env, name) === undefined ? undefined : int(env, name, min, min, max);
}

/** One of `values`; `def` when unset. */
export function oneOf<T extends string>(env: Env, name: string, values: readonly T[], def: T): T {
  const raw = str(env, name);
  if (raw === undefined) return def;
  if (!(values as readonly string[]).includes(raw)) {
    throw new ConfigError(name, `expected one of ${values.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

/** A URL with one of `protocols` (`['http:', 'https:']`), as written; undefined when unset. */
export function url(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(name, `not a valid URL: "${redact(raw)}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(name, `expected a ${protocols.join(' or ')} URL, got "${parsed.protocol}"`);
  }
  return raw;
}

/** A JSON object (`{"guidance_scale": 3}`), or undefined when unset. */
export function jsonObject(env: Env, name: string): Record<string, unknown> | undefined {
  const raw = str(env, name);
  if (raw === undefined) return undefined;
  let o: unknown;
  try {
    o = JSON.parse(raw);
  } catch {
    throw new ConfigError(name, 'must be a JSON object');
  }
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw new ConfigError(name, 'must be a JSON object');
  return o as Record<string, unknown>;
}

/**
 * The variables a family's hosted providers share, `<PREFIX>_API_BASE_URL` (an http(s) URL),
 * `<PREFIX>_API_KEY`, `<PREFIX>_TIMEOUT_SECONDS` (whole seconds in `timeoutRange`, as `timeoutMs`)
 * and `<PREFIX>_MAX_RETRIES` (0..10); unset ones are left out of `limits`.
 */
export function providerApiEnv(env: Env, prefix: string, timeoutRange: [number, number]) {
  const baseUrl = url(env, `${prefix}_API_BASE_URL`, ['http:', 'https:']);
  const timeoutSeconds = optionalInt(env, `${prefix}_TIMEOUT_SECONDS`, ...timeoutRange);
  const maxRetries = optionalInt(env, `${prefix}_MAX_RETRIES`, 0, 10);
  const limits: { timeoutMs?: number; maxRetries?: number } = {
    ...(timeoutSeconds !== undefined ? { timeoutMs: Math.round(timeoutSeconds * 1000) } : {}),
    ...(maxRetries !== undefined ? { maxRetries } : {}),
  };
  return { baseUrl, apiKey: str(env, `${prefix}_API_KEY`), limits };
}

/** `{ [key]: value }` when the value is set, else nothing: spread into settings. */
export const ifSet = <K extends string, V>(key: K, value: V | undefined) =>
  value === undefined || value === '' ? {} : ({ [key]: value } as Record<K, V>);

/** Hides a password in a connection URL before it is printed. */
export function redact(raw: string): string {
  try {
    const u = new URL(raw);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return raw.replace(/\/\/[^@/]*@/, '//***@');
  }
}
