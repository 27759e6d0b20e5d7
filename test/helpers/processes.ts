import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { eventually } from './assets.ts';

/**
 * Atelier as real processes (`node src/main.ts …`, on the Node.js running the tests),
 * for the end-to-end tests that kill, stop and restart servers and workers.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');

export interface Proc {
  child: ChildProcess;
  /** stdout and stderr as they came (the last 20 kB). */
  output(): string;
  stdout(): string;
  exited: Promise<number | null>;
}

/** This machine's environment without any setting that would change Atelier (nor `drop`), plus `extra`. */
export function bareEnv(extra: Record<string, string>, drop?: RegExp): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (/^(ATELIER_|DATABASE_URL$|REDIS_URL$|PORT$|HOST$|S3_|LOG_LEVEL$|NODE_OPTIONS$|VITEST)/.test(k)) continue;
    if (drop?.test(k)) continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

/** The test's environment without any setting of this machine that would change Atelier, with the process tests' settings. */
export function cleanEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  return bareEnv({
    LOG_LEVEL: 'warn',
    ATELIER_JOB_LEASE_SECONDS: '5',
    ATELIER_WORKER_CONCURRENCY: '2',
    ATELIER_RATE_LIMIT_PER_SECOND: '100000',
    ATELIER_RATE_LIMIT_BURST: '100000',
    // Scenes at 256 px, as the in-process test apps (test/helpers/app.ts): these tests are about
    // processes, crashes and queues; full-size output is the engine tests' and the benches' work.
    ATELIER_IMAGE_LONG_SIDE: '256',
    ...extra,
  });
}

export function atelier(args: string[], env: NodeJS.ProcessEnv): Proc {
  const child = spawn(process.execPath, ['src/main.ts', ...args], { cwd: ROOT, env });
  let out = '';
  let stdout = '';
  const keep = (d: Buffer) => {
    out = (out + d.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', (d: Buffer) => {
    stdout = (stdout + d.toString('utf8')).slice(-20_000);
    keep(d);
  });
  child.stderr?.on('data', keep);
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return { child, output: () => out, stdout: () => stdout, exited };
}

export async function run(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const p = atelier(args, env);
  const code = await p.exited;
  if (code !== 0) throw new Error(`atelier ${args.join(' ')} exited with ${code}:\n${p.output()}`);
  return p.stdout();
}

export async function kill(p: Proc, signal: NodeJS.Signals): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  p.child.kill(signal);
  await p.exited;
}

export async function healthy(base: string, p: Proc): Promise<void> {
  await eventually(
    async () => {
      if (p.child.exitCode !== null) throw new Error(`the server exited:\n${p.output()}`);
      const ok = await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      return ok || undefined;
    },
    `${base} to answer`,
    60_000,
    200,
  );
}

/** A worker process is ready once it says so (it has no HTTP port): a JSON log line, or words at a terminal. */
export const workerReady = (p: Proc) =>
  eventually(
    async () => {
      if (p.child.exitCode !== null) throw new Error(`the worker exited:\n${p.output()}`);
      return /"msg":"worker running"|Atelier worker running/.test(p.output()) || undefined;
    },
    'the worker to start',
    60_000,
    200,
  );

// biome-ignore lint/suspicious/noExplicitAny: response bodies of the API, checked by the assertions
type Json = any;

/** The API of a running process, called with a key: the parsed body, or an error naming the call. */
export function apiClient(base: string, apiKey: string) {
  const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
  const call = async (method: string, url: string, body?: unknown): Promise<Json> => {
    const res = await fetch(`${base}/v1${url}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
    const json = await res.json();
    if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(json)}`);
    return json;
  };
  return {
    call,
    get: (url: string) => call('GET', url),
    post: (url: string, body: unknown) => call('POST', url, body),
  };
}
