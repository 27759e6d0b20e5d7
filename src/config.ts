import fs from 'node:fs';
import { availableParallelism } from 'node:os';
import ipaddr from 'ipaddr.js';
import path from 'node:path';
import { IMAGE_PROVIDERS, type SceneEngineSettings } from './engines/image/index.ts';
import { ConfigError, type Env, int, oneOf, str, url } from './engines/shared/env-settings.ts';
import { TEXT_PROVIDERS, type TextEngineSettings } from './engines/text/index.ts';
import { VIDEO_PROVIDERS, type VideoEngineSettings } from './engines/video/index.ts';
import { isVideoModelId, VIDEO_MODELS, type VideoModelId } from './modules/videos/video-models.ts';
import type { SignerSettings } from './adapters/provenance/credentials.ts';
import type { LogSettings } from './adapters/log/logger.ts';
import type { StorageSettings } from './adapters/storage/storage.ts';
import type { MetricsSettings } from './http/metrics-listener.ts';
import type { AtelierEnv } from './modules/access/access.keys.ts';

export { ConfigError, redact } from './engines/shared/env-settings.ts';

/**
 * Every setting Atelier reads, parsed once at start. An invalid value stops the start with a
 * message that names the setting (ConfigError). Documented in the README's settings table.
 */
export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  env: AtelierEnv;
  /** Base URL (scheme, host, optional path) used in Location headers and links; no trailing slash. */
  publicUrl: string;
  allowPrivateFetch: boolean;
  /** ATELIER_TRUST_PROXY: addresses or CIDR ranges of the reverse proxies whose X-Forwarded-* headers count; empty: none. */
  trustProxy: string[];
  /** Browser origins allowed to call the API (ATELIER_CORS_ORIGINS; empty: CORS off). */
  corsOrigins: string[];
  logLevel: LogSettings['logLevel'];
  /** `pretty`: one short human line per event (default at a terminal); `json`: pino's lines (ATELIER_LOG_FORMAT). */
  logFormat: LogSettings['logFormat'];
  plansFile: string;
  rateLimit: { perSecond: number; burst: number };
  /** Bytes of answers one key may make the server write per second, and their burst (ATELIER_RATE_LIMIT_BYTES_*). */
  byteLimit: { perSecond: number; burst: number };
  /** Largest JSON request body accepted, in bytes. */
  bodyLimit: number;
  /**
   * Slow-client bounds of the HTTP server: the headers must arrive within `headersMs`
   * (ATELIER_HEADERS_TIMEOUT_SECONDS, default 30) and the whole request within `requestMs`
   * (ATELIER_REQUEST_TIMEOUT_SECONDS, default 900: a 500 MB upload on a slow link); past either,
   * 408 and the connection is closed.
   */
  httpTimeouts: { headersMs: number; requestMs: number; bodyMs: number };
  /** PostgreSQL pool size and session time bounds (ATELIER_PG_POOL_SIZE, ATELIER_PG_*_TIMEOUT_MS). */
  pg: { poolSize: number; statementMs: number; lockMs: number; idleInTransactionMs: number };
  /** Threads for the local engines' CPU work (ATELIER_ENGINE_THREADS; 0: on the event loop). */
  engineThreads: number;
  /** Jobs run at once per queue in each worker process (ATELIER_WORKER_CONCURRENCY). */
  workerConcurrency: number;
  /** Redis key prefix of the BullMQ queues (ATELIER_QUEUE_PREFIX); deployments sharing a Redis need one each. */
  queuePrefix: string;
  /** A crashed worker's jobs run again after about this long without its heartbeat (ATELIER_JOB_LEASE_SECONDS). */
  jobLeaseMs: number;
  /** Where Prometheus metrics are served; never openly on the API port (ATELIER_METRICS_*). */
  metrics: MetricsSettings;
  /** Object storage (src/adapters/storage): S3 when S3_BUCKET is set, else `<dataDir>/blobs`. */
  storage: StorageSettings;
  /** A URL extraction still running this long after submit fails (ATELIER_EXTRACTION_TIMEOUT_SECONDS). */
  extractionTimeoutSeconds: number;
  /**
   * Generation work still waiting to start this long after it was asked for is failed and its units
   * released by the pending-work sweep (ATELIER_PENDING_LIMIT_MINUTES, default 60).
   */
  pendingLimitMs: number;
  /** Brand DNA text analysis by an OpenAI-compatible endpoint (LLM_*); unset → the local analyzer. */
  llm: TextEngineSettings;
  /** Long side of generated images in px (ATELIER_IMAGE_LONG_SIDE); the short side follows the aspect ratio. */
  imageLongSide: number;
  /** The scene engine (IMAGE_ENGINE and its provider's settings: src/engines/image/providers.ts); `local` by default. */
  imageEngine: SceneEngineSettings;
  /** The video engine (VIDEO_ENGINE...) and the models it renders; the others use `local`. */
  video: VideoSettings;
  /**
   * ATELIER_INPUT_LINKS: whether providers that take images by URL get short-lived links to them in
   * our storage: `auto` (default) when the links' host looks public, `on` always, `off` never.
   */
  inputLinks: 'auto' | 'on' | 'off';
  /** Requests held by `Prefer: wait` at once per process (ATELIER_LONG_POLL_MAX); 0 turns long-poll off. */
  longPollMax: number;
  /** Signed webhooks (src/modules/webhooks). */
  webhooks: WebhookSettings;
  /** ATELIER_CONSOLE_DIR: the built web console served at /console (default `<install>/console/dist`). */
  consoleDir: string;
  /**
   * Content Credentials (C2PA) signing of generated files: the operator's certificate chain and
   * key (ATELIER_C2PA_CERT_FILE and ATELIER_C2PA_KEY_FILE, or ATELIER_C2PA_CERT and ATELIER_C2PA_KEY
   * holding the PEM text); none: a development certificate made into the data folder.
   */
  c2pa: SignerSettings;
}

/** The C2PA signer settings: a chain and a key, each as a file or as PEM text, both or neither. */
function c2paSettings(env: Env, cwd: string): SignerSettings {
  const certFile = str(env, 'ATELIER_C2PA_CERT_FILE');
  const keyFile = str(env, 'ATELIER_C2PA_KEY_FILE');
  const certPem = str(env, 'ATELIER_C2PA_CERT');
  const keyPem = str(env, 'ATELIER_C2PA_KEY');
  if (certFile && certPem)
    throw new ConfigError('ATELIER_C2PA_CERT', 'set ATELIER_C2PA_CERT or ATELIER_C2PA_CERT_FILE, not both');
  if (keyFile && keyPem)
    throw new ConfigError('ATELIER_C2PA_KEY', 'set ATELIER_C2PA_KEY or ATELIER_C2PA_KEY_FILE, not both');
  const hasCert = Boolean(certFile || certPem);
  const hasKey = Boolean(keyFile || keyPem);
  if (hasCert !== hasKey) {
    throw new ConfigError(
      hasCert ? 'ATELIER_C2PA_KEY_FILE' : 'ATELIER_C2PA_CERT_FILE',
      'the certificate chain and its private key go together: set both (files or PEM text), or neither',
    );
  }
  if (certPem && !certPem.includes('-----BEGIN CERTIFICATE-----')) {
    throw new ConfigError('ATELIER_C2PA_CERT', 'expected PEM text (-----BEGIN CERTIFICATE-----...)');
  }
  // Never the key's text in a message: only that it is not PEM.
  if (keyPem && !/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(keyPem)) {
    throw new ConfigError('ATELIER_C2PA_KEY', 'expected a PEM private key (-----BEGIN PRIVATE KEY-----...)');
  }
  for (const [name, file] of [
    ['ATELIER_C2PA_CERT_FILE', certFile],
    ['ATELIER_C2PA_KEY_FILE', keyFile],
  ] as const) {
    if (file && !fs.existsSync(path.resolve(cwd, file))) throw new ConfigError(name, `no such file: ${file}`);
  }
  return {
    ...(certFile ? { certFile: path.resolve(cwd, certFile) } : {}),
    ...(keyFile ? { keyFile: path.resolve(cwd, keyFile) } : {}),
    ...(certPem ? { certPem } : {}),
    ...(keyPem ? { keyPem } : {}),
  };
}

function metricsSettings(env: Env, apiPort: number): MetricsSettings {
  const port =
    str(env, 'ATELIER_METRICS_PORT') === undefined ? undefined : int(env, 'ATELIER_METRICS_PORT', 0, 1, 65535);
  if (port !== undefined && port === apiPort) {
    throw new ConfigError('ATELIER_METRICS_PORT', `must differ from PORT (${apiPort}): it is a listener of its own`);
  }
  const token = str(env, 'ATELIER_METRICS_TOKEN');
  if (token !== undefined && token.length < 16) {
    throw new ConfigError('ATELIER_METRICS_TOKEN', 'must be at least 16 characters (e.g. openssl rand -hex 16)');
  }
  return { port, host: str(env, 'ATELIER_METRICS_HOST') ?? '127.0.0.1', token };
}

export interface WebhookSettings {
  /** ATELIER_WEBHOOK_RETRY_SCHEDULE: delays between attempts (±20 % jitter); attempts = length + 1. */
  retryScheduleMs: number[];
  /** ATELIER_WEBHOOK_CONCURRENCY: deliveries in flight at once per worker process. */
  concurrency: number;
}

export const DEFAULT_WEBHOOK_RETRY_SCHEDULE = '30s,2m,10m,1h,3h,6h,12h';
const DURATION_UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** A comma-separated list of durations (`30s,2m,1h`, `50ms`): 1..20 of them, each 1 ms..24 h. */
function durationList(env: Env, name: string, def: string): number[] {
  const raw = str(env, name) ?? def;
  const items = raw.split(',').map((x) => x.trim());
  if (items.length > 20) throw new ConfigError(name, `expected at most 20 durations, got ${items.length}`);
  return items.map((item) => {
    const m = /^(\d+)(ms|s|m|h)$/.exec(item);
    const ms = m ? Number(m[1]) * (DURATION_UNITS[m[2]!] ?? 0) : Number.NaN;
    if (!(ms >= 1 && ms <= 86_400_000)) {
      throw new ConfigError(name, `expected durations like 30s, 2m, 1h (each up to 24h), got "${item}"`);
    }
    return ms;
  });
}

export interface VideoSettings {
  engine: VideoEngineSettings;
  /** VIDEO_ENGINE_MODELS: the API models the engine renders (default every model but video-model-8). */
  models: VideoModelId[];
}

/**
 * VIDEO_ENGINE and its provider's settings (src/engines/video/providers.ts), and
 * VIDEO_ENGINE_MODELS: which of the API's models go to that engine. The provider adapters have no
 * reference-to-video mode, so video-model-8 stays on `local` unless listed.
 */
function videoSettings(env: Env): VideoSettings {
  const engine = VIDEO_PROVIDERS.parse(env);
  const listed = str(env, 'VIDEO_ENGINE_MODELS')
    ?.split(',')
    .map((m) => m.trim())
    .filter(Boolean);
  for (const m of listed ?? []) {
    if (!isVideoModelId(m)) throw new ConfigError('VIDEO_ENGINE_MODELS', `names an unknown model "${m}"`);
  }
  return {
    engine,
    models: (listed as VideoModelId[] | undefined) ?? VIDEO_MODELS.filter((m) => m !== 'video-model-8'),
  };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const ENVS = ['dev', 'staging', 'prod'] as const;

function httpTimeouts(env: Env): Config['httpTimeouts'] {
  const requestMs = int(env, 'ATELIER_REQUEST_TIMEOUT_SECONDS', 900, 1, 86_400) * 1000;
  // Node refuses a headers bound longer than the request's.
  const headersMs = Math.min(int(env, 'ATELIER_HEADERS_TIMEOUT_SECONDS', 30, 1, 600) * 1000, requestMs);
  // JSON bodies are small: a body still arriving after this is a slow client (uploads keep requestMs).
  const bodyMs = Math.min(int(env, 'ATELIER_BODY_TIMEOUT_SECONDS', 60, 1, 3600) * 1000, requestMs);
  return { headersMs, requestMs, bodyMs };
}

/** A comma-separated list of IP addresses or CIDR ranges (`false`/unset: none). */
function proxyList(env: Env, name: string): string[] {
  const raw = str(env, name);
  if (raw === undefined || ['false', 'off', 'no', '0'].includes(raw.toLowerCase())) return [];
  const items = raw
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  for (const item of items) {
    const valid = item.includes('/') ? isValidCidr(item) : ipaddr.isValid(item);
    if (!valid) {
      throw new ConfigError(name, `expected IP addresses or CIDR ranges of your proxies, got "${item}"`);
    }
  }
  return items;
}

/** A comma-separated list of origins (`https://shop.example`, `http://localhost:5173`) or `*`. */
function originList(env: Env, name: string): string[] {
  const raw = str(env, name);
  if (raw === undefined) return [];
  const out: string[] = [];
  for (const item of raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    if (item === '*') {
      out.push('*');
      continue;
    }
    let url: URL;
    try {
      url = new URL(item);
    } catch {
      throw new ConfigError(name, `"${item}" is not an origin (e.g. https://shop.example or *)`);
    }
    if (
      (url.protocol !== 'http:' && url.protocol !== 'https:') ||
      url.origin !== item.replace(/\/$/, '').toLowerCase()
    ) {
      throw new ConfigError(name, `"${item}" is not an origin: scheme, host and port only (e.g. https://shop.example)`);
    }
    out.push(url.origin);
  }
  return out;
}

function isValidCidr(value: string): boolean {
  try {
    ipaddr.parseCIDR(value);
    return true;
  } catch {
    return false;
  }
}

function bool(env: Env, name: string, def: boolean): boolean {
  const raw = str(env, name);
  if (raw === undefined) return def;
  const v = raw.toLowerCase();
  if (['1', 'true', 'yes', 'on'].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(name, `expected true/false (or 1/0), got "${raw}"`);
}

const S3_SETTINGS = [
  'S3_ENDPOINT',
  'S3_REGION',
  'S3_ACCESS_KEY_ID',
  'S3_SECRET_ACCESS_KEY',
  'S3_FORCE_PATH_STYLE',
  'S3_CREATE_BUCKET',
];

function storageSettings(env: Env): StorageSettings {
  const signingSecret = str(env, 'ATELIER_SIGNING_SECRET');
  if (signingSecret !== undefined && signingSecret.length < 32) {
    throw new ConfigError('ATELIER_SIGNING_SECRET', 'must be at least 32 characters (e.g. openssl rand -hex 32)');
  }
  const links = {
    uploadLinkTtlSeconds: int(env, 'ATELIER_UPLOAD_LINK_TTL_SECONDS', 900, 60, 86_400),
    downloadLinkTtlSeconds: int(env, 'ATELIER_DOWNLOAD_LINK_TTL_SECONDS', 3600, 60, 86_400),
  };
  const bucket = str(env, 'S3_BUCKET');
  if (bucket === undefined) {
    const stray = S3_SETTINGS.find((n) => str(env, n) !== undefined);
    if (stray) throw new ConfigError('S3_BUCKET', `is required when ${stray} is set`);
    return { s3: undefined, signingSecret, ...links };
  }
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) {
    throw new ConfigError('S3_BUCKET', `not a valid bucket name: "${bucket}"`);
  }
  const region = str(env, 'S3_REGION') ?? 'us-east-1';
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(region)) throw new ConfigError('S3_REGION', `not a valid region: "${region}"`);
  const accessKeyId = str(env, 'S3_ACCESS_KEY_ID');
  const secretAccessKey = str(env, 'S3_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    const missing = accessKeyId === undefined ? 'S3_ACCESS_KEY_ID' : 'S3_SECRET_ACCESS_KEY';
    throw new ConfigError(missing, 'set both S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY, or neither (SDK defaults)');
  }
  const endpoint = url(env, 'S3_ENDPOINT', ['http:', 'https:']);
  return {
    s3: {
      endpoint,
      bucket,
      region,
      accessKeyId,
      secretAccessKey,
      // Stores other than AWS (MinIO, s3rver, Ceph...) usually need path-style addressing.
      forcePathStyle: bool(env, 'S3_FORCE_PATH_STYLE', endpoint !== undefined),
      createBucket: bool(env, 'S3_CREATE_BUCKET', false),
    },
    signingSecret,
    ...links,
  };
}

function queuePrefix(env: Env): string {
  const prefix = str(env, 'ATELIER_QUEUE_PREFIX') ?? 'atelier';
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(prefix)) {
    throw new ConfigError('ATELIER_QUEUE_PREFIX', `expected 1..64 letters, digits, '.', '_' or '-', got "${prefix}"`);
  }
  return prefix;
}

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Config {
  const port = int(env, 'PORT', 8080, 0, 65535);
  const host = str(env, 'HOST') ?? '0.0.0.0';
  const dataDir = path.resolve(cwd, str(env, 'ATELIER_DATA_DIR') ?? './data');
  const databaseUrl = url(env, 'DATABASE_URL', ['postgres:', 'postgresql:']);
  const redisUrl = url(env, 'REDIS_URL', ['redis:', 'rediss:']);
  const publicRaw = url(env, 'ATELIER_PUBLIC_URL', ['http:', 'https:']);
  const publicUrl = (publicRaw ?? `http://localhost:${port}`).replace(/\/+$/, '');
  const plansFile = path.resolve(
    cwd,
    str(env, 'ATELIER_PLANS_FILE') ?? path.join(import.meta.dirname, '..', 'config', 'plans.json'),
  );
  return {
    port,
    host,
    dataDir,
    databaseUrl,
    redisUrl,
    env: oneOf(env, 'ATELIER_ENV', ENVS, 'dev'),
    publicUrl,
    allowPrivateFetch: bool(env, 'ATELIER_ALLOW_PRIVATE_FETCH', false),
    trustProxy: proxyList(env, 'ATELIER_TRUST_PROXY'),
    corsOrigins: originList(env, 'ATELIER_CORS_ORIGINS'),
    logLevel: oneOf(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: oneOf(env, 'ATELIER_LOG_FORMAT', ['json', 'pretty'] as const, process.stdout.isTTY ? 'pretty' : 'json'),
    plansFile,
    rateLimit: {
      perSecond: int(env, 'ATELIER_RATE_LIMIT_PER_SECOND', 20, 1, 1_000_000),
      burst: int(env, 'ATELIER_RATE_LIMIT_BURST', 60, 1, 1_000_000),
    },
    byteLimit: {
      perSecond: int(env, 'ATELIER_RATE_LIMIT_BYTES_PER_SECOND', 8 * 1024 * 1024, 1024, 1024 ** 3),
      burst: int(env, 'ATELIER_RATE_LIMIT_BYTES_BURST', 32 * 1024 * 1024, 1024, 1024 ** 3),
    },
    bodyLimit: int(env, 'ATELIER_BODY_LIMIT', 1_048_576, 1024, 104_857_600),
    httpTimeouts: httpTimeouts(env),
    workerConcurrency: int(env, 'ATELIER_WORKER_CONCURRENCY', 2, 1, 64),
    engineThreads: int(env, 'ATELIER_ENGINE_THREADS', availableParallelism(), 0, 256),
    pg: {
      poolSize: int(env, 'ATELIER_PG_POOL_SIZE', 10, 1, 1000),
      statementMs: int(env, 'ATELIER_PG_STATEMENT_TIMEOUT_MS', 30_000, 0, 3_600_000),
      lockMs: int(env, 'ATELIER_PG_LOCK_TIMEOUT_MS', 5_000, 0, 3_600_000),
      idleInTransactionMs: int(env, 'ATELIER_PG_IDLE_IN_TRANSACTION_TIMEOUT_MS', 30_000, 0, 3_600_000),
    },
    queuePrefix: queuePrefix(env),
    jobLeaseMs: int(env, 'ATELIER_JOB_LEASE_SECONDS', 30, 5, 3600) * 1000,
    metrics: metricsSettings(env, port),
    storage: storageSettings(env),
    extractionTimeoutSeconds: int(env, 'ATELIER_EXTRACTION_TIMEOUT_SECONDS', 600, 1, 86_400),
    pendingLimitMs: int(env, 'ATELIER_PENDING_LIMIT_MINUTES', 60, 5, 10_080) * 60_000,
    llm: TEXT_PROVIDERS.parse(env),
    imageLongSide: int(env, 'ATELIER_IMAGE_LONG_SIDE', 1024, 256, 4096),
    imageEngine: IMAGE_PROVIDERS.parse(env),
    video: videoSettings(env),
    inputLinks: oneOf(env, 'ATELIER_INPUT_LINKS', ['auto', 'on', 'off'] as const, 'auto'),
    longPollMax: int(env, 'ATELIER_LONG_POLL_MAX', 1000, 0, 100_000),
    webhooks: {
      retryScheduleMs: durationList(env, 'ATELIER_WEBHOOK_RETRY_SCHEDULE', DEFAULT_WEBHOOK_RETRY_SCHEDULE),
      concurrency: int(env, 'ATELIER_WEBHOOK_CONCURRENCY', 8, 1, 256),
    },
    consoleDir: path.resolve(
      cwd,
      str(env, 'ATELIER_CONSOLE_DIR') ?? path.join(import.meta.dirname, '..', 'console', 'dist'),
    ),
    c2pa: c2paSettings(env, cwd),
  };
}
