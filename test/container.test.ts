import { execFile, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { nodeProblem } from '../scripts/check-node.mjs';
import { loadConfig } from '../src/config.ts';
import { freePort } from './helpers/assets.ts';

/**
 * The Dockerfile and compose.yaml against what the server reads: statically always (names and
 * defaults of src/config.ts, the CLI's commands, the paths the server loads from), and for real
 * where a container tool works: the image is built and a container driven over HTTP.
 *
 * The real part runs when podman or docker answers and the base image is already present (no
 * pull is attempted: registries may be unreachable); ATELIER_TEST_CONTAINERS=1 runs it anyway
 * (pulling), =0 skips it.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const run = promisify(execFile);

interface Instruction {
  op: string;
  args: string;
}

/** The Dockerfile's global ARGs and its stages, each a list of instructions (continuations joined). */
function parseDockerfile(text: string): { args: Map<string, string>; stages: Instruction[][] } {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const args = new Map<string, string>();
  const stages: Instruction[][] = [];
  for (const line of lines) {
    const [op = '', ...rest] = line.split(/\s+/);
    const ins = { op: op.toUpperCase(), args: rest.join(' ') };
    if (ins.op === 'FROM') stages.push([]);
    if (stages.length === 0 && ins.op === 'ARG') {
      const [name = '', value = ''] = ins.args.split('=');
      args.set(name, value);
    }
    stages.at(-1)?.push(ins);
  }
  return { args, stages };
}

const all = (stage: Instruction[], op: string) => stage.filter((i) => i.op === op).map((i) => i.args);
const last = (stage: Instruction[], op: string) => all(stage, op).at(-1) ?? '';
const execForm = (args: string) => JSON.parse(args) as string[];
/** `ENV A=1 B=2` lines of a stage, as an environment. */
const envOf = (stage: Instruction[]) =>
  Object.fromEntries(all(stage, 'ENV').flatMap((a) => a.split(/\s+/).map((kv) => kv.split('=') as [string, string])));

/** Every environment variable the server reads: the names in src/config.ts and `process.env.X` in src. */
function settingNames(): Set<string> {
  const names = new Set(read('src/config.ts').match(/(?<=')[A-Z][A-Z0-9_]+(?=')/g));
  const files = fs.readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' });
  for (const file of files.filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))) {
    for (const m of read(path.join('src', file)).matchAll(/process\.env\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!);
  }
  return names;
}

/** What compose does to `${NAME:-default}`, `${NAME}` and `$$` when NAME is unset. */
const interpolate = (text: string) =>
  text.replace(/\$\{[A-Z0-9_]+(?::?-([^}]*))?\}/g, (_m, def: string | undefined) => def ?? '').replaceAll('$$', '$');

const dockerfile = parseDockerfile(read('Dockerfile'));
const runtime = dockerfile.stages.at(-1) ?? [];
const workdir = last(runtime, 'WORKDIR');
const imageEnv = envOf(runtime);
const SETTINGS = settingNames();
/** The commands the CLI (src/cli/run.ts) dispatches to the server side. */
const COMMANDS = [...read('src/cli/run.ts').matchAll(/case '([a-z]+)':/g)].map((m) => m[1]);

describe('Dockerfile', () => {
  it('builds on the Node.js image the project supports, installs with npm ci and builds the console', () => {
    const base = dockerfile.args.get('NODE_IMAGE') ?? '';
    const major = /^node:(\d+)/.exec(base)?.[1];
    expect(major).toBeDefined();
    expect(nodeProblem({ node: `${major}.0.0` } as NodeJS.ProcessVersions)).toBeUndefined();
    const stageNames = dockerfile.stages.map((s) => /\bAS\s+(\S+)/i.exec(s[0]?.args ?? '')?.[1]);
    for (const [i, stage] of dockerfile.stages.entries()) {
      const from = (stage[0]?.args ?? '').split(/\s+/)[0];
      expect(from === `\${NODE_IMAGE}` || stageNames.slice(0, i).includes(from)).toBe(true);
    }
    const runs = dockerfile.stages.slice(0, -1).flatMap((s) => all(s, 'RUN'));
    expect(runs.some((r) => /^npm ci\b/.test(r))).toBe(true);
    expect(runs.some((r) => r.includes('npm run -s console:build'))).toBe(true);
    expect(JSON.parse(read('package.json')).scripts['console:build']).toBeDefined();
  });

  it('runs the package bin with node as PID 1, `serve` by default, as a user other than root', () => {
    const pkg = JSON.parse(read('package.json')) as { bin: { atelier: string } };
    expect(execForm(last(runtime, 'ENTRYPOINT'))).toEqual(['node', path.posix.join(workdir, pkg.bin.atelier)]);
    expect(fs.existsSync(path.join(ROOT, pkg.bin.atelier))).toBe(true);
    const cmd = execForm(last(runtime, 'CMD'));
    expect(cmd).toEqual(['serve']);
    expect(COMMANDS).toContain(cmd[0]);
    expect(['', 'root', '0']).not.toContain(last(runtime, 'USER').split(':')[0]);
  });

  it('sets only settings the server reads, to the embedded mode listening on the exposed port with its data in the volume', () => {
    for (const name of Object.keys(imageEnv)) expect(SETTINGS, name).toContain(name);
    const config = loadConfig(imageEnv, workdir);
    expect(config.host).toBe('0.0.0.0');
    expect(String(config.port)).toBe(last(runtime, 'EXPOSE'));
    expect(config.databaseUrl).toBeUndefined();
    expect(config.storage.s3).toBeUndefined();
    const volume = last(runtime, 'VOLUME');
    expect(config.dataDir).toBe(volume);
    // The data folder belongs to the user the server runs as.
    const user = last(runtime, 'USER');
    expect(all(runtime, 'RUN').some((r) => new RegExp(`chown ${user}(:\\S+)? ${volume}\\b`).test(r))).toBe(true);
  });

  it('copies into the runtime stage what the server loads, at the paths src/config.ts and the bin expect', () => {
    const config = loadConfig({}, ROOT);
    const bin = JSON.parse(read('package.json')).bin.atelier as string;
    const needed = ['package.json', 'node_modules', 'src', 'sdk', path.dirname(bin), 'scripts/check-node.mjs'];
    needed.push(path.relative(ROOT, path.dirname(config.plansFile)), path.relative(ROOT, config.consoleDir));
    // Each COPY source lands where it was in the build stage's WORKDIR (the repository's layout).
    const copied = all(runtime, 'COPY').flatMap((args) => {
      const parts = args.split(/\s+/).filter((p) => !p.startsWith('--'));
      const dest = parts.pop() ?? '';
      const intoDir = dest.endsWith('/') || dest === '.' || parts.length > 1;
      return parts
        .map((src) => ({
          from: path.posix.relative(workdir, src),
          to: intoDir ? path.posix.join(dest, path.posix.basename(src)) : dest,
        }))
        .filter(({ from, to }) => from === path.posix.normalize(to))
        .map(({ from }) => from);
    });
    for (const p of needed) expect(copied, p).toContain(p);
  });

  it('.dockerignore keeps what the build reads and leaves out installs, data and history', () => {
    const patterns = read('.dockerignore')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    const ignored = (p: string) =>
      p
        .split('/')
        .some((_, i, parts) => patterns.some((pat) => path.matchesGlob(parts.slice(0, i + 1).join('/'), pat)));
    const kept = ['package.json', 'package-lock.json', 'tsconfig.json', 'src/main.ts', 'src/config.ts'];
    kept.push(
      'bin/atelier.mjs',
      'scripts/check-node.mjs',
      'config/plans.json',
      'console/build.ts',
      'console/src/main.tsx',
    );
    kept.push('sdk/src/index.ts', 'src/modules/generation/engine-worker.mjs');
    for (const p of kept) {
      expect(fs.existsSync(path.join(ROOT, p)), p).toBe(true);
      expect(ignored(p), p).toBe(false);
    }
    for (const p of [
      'node_modules/x',
      'data/atelier.db',
      '.git/HEAD',
      'console/dist/index.html',
      'src/config.test.ts',
    ]) {
      expect(ignored(p), p).toBe(true);
    }
  });

  describe('health check', () => {
    let server: http.Server;
    let status = 200;
    let port = 0;
    beforeAll(async () => {
      server = http.createServer((req, res) => {
        res.statusCode = req.url === '/healthz' ? status : 404;
        res.end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise((resolve) => server.close(resolve)));

    /** The image's HEALTHCHECK command, run here (not blocking: the server above answers it) with PORT set. */
    const check = async (env: Record<string, string>) => {
      const test = execForm(last(runtime, 'HEALTHCHECK').replace(/^(--\S+\s+)*CMD\s+/, ''));
      expect(test[0]).toBe('node');
      return run(process.execPath, test.slice(1), { env: { ...process.env, ...env }, timeout: 20_000 }).then(
        () => 0,
        (err: { code?: number }) => err.code,
      );
    };

    it('is GET /healthz, the liveness route, through Node, passing on 200 and failing otherwise', async () => {
      expect(read('src/http/ops.routes.ts')).toContain("app.get('/healthz'");
      status = 200;
      expect(await check({ PORT: String(port) })).toBe(0);
      status = 503;
      expect(await check({ PORT: String(port) })).toBe(1);
      expect(await check({ PORT: String(await freePort()) })).toBe(1);
    });
  });
});

describe('compose.yaml', () => {
  const raw = read('compose.yaml');
  const compose = parseYaml(interpolate(raw), { merge: true }) as {
    services: Record<string, Service>;
    configs: Record<string, { content: string }>;
  };
  interface Service {
    image?: string;
    build?: unknown;
    command?: string[];
    environment?: Record<string, string>;
    deploy?: { replicas?: number };
    depends_on?: Record<string, { condition: string }>;
    ports?: string[];
    networks?: { default?: { aliases?: string[] } };
  }
  const services = compose.services;
  const atelier = Object.entries(services).filter(([, s]) => s.build !== undefined);

  it('gives the Atelier containers only settings the server reads, valid for the scaled mode', () => {
    expect(atelier.map(([name]) => name).sort()).toEqual(['api', 'migrate', 'worker']);
    for (const [name, s] of atelier) {
      for (const key of Object.keys(s.environment ?? {})) expect(SETTINGS, `${name}: ${key}`).toContain(key);
      const config = loadConfig({ ...imageEnv, ...s.environment }, workdir);
      expect(config.databaseUrl).toMatch(/^postgres:/);
      expect(config.redisUrl).toMatch(/^redis:/);
      expect(config.storage.s3?.forcePathStyle).toBe(true);
      expect(COMMANDS, name).toContain(s.command?.[0]);
    }
    expect(services.api?.command).toEqual(['serve', '--no-workers']);
    expect(services.worker?.command).toEqual(['worker']);
    expect(services.migrate?.command).toEqual(['migrate']);
    expect(services.api?.deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(services.worker?.deploy?.replicas).toBeGreaterThanOrEqual(2);
    for (const s of ['api', 'worker']) {
      expect(services[s]?.depends_on?.migrate?.condition).toBe('service_completed_successfully');
    }
  });

  it('points the settings at the services that serve them, with the same credentials', () => {
    const env = services.api?.environment ?? {};
    const db = new URL(env.DATABASE_URL ?? '');
    const pg = services[db.hostname]?.environment ?? {};
    expect([db.username, db.password, db.pathname.slice(1)]).toEqual([
      pg.POSTGRES_USER,
      pg.POSTGRES_PASSWORD,
      pg.POSTGRES_DB,
    ]);
    expect(services[new URL(env.REDIS_URL ?? '').hostname]?.image).toMatch(/redis/);
    // The S3 endpoint is the store's alias on the network and its published port on this machine.
    const s3url = new URL(env.S3_ENDPOINT ?? '');
    const store = Object.values(services).find((s) => s.networks?.default?.aliases?.includes(s3url.hostname));
    expect(store?.ports).toContain(`${s3url.port}:${s3url.port}`);
    expect(store?.command).toContain(`-bucket=${env.S3_BUCKET}`);
    expect([store?.environment?.AWS_ACCESS_KEY_ID, store?.environment?.AWS_SECRET_ACCESS_KEY]).toEqual([
      env.S3_ACCESS_KEY_ID,
      env.S3_SECRET_ACCESS_KEY,
    ]);
    // The uninterpolated secrets are the same variables on both sides.
    expect(raw.match(/\$\{S3_SECRET_ACCESS_KEY:-[^}]*\}/g)?.length).toBe(2);
    // The proxy sends requests to the API containers' port.
    expect(compose.configs.nginx?.content).toContain(`http://api:${env.PORT ?? imageEnv.PORT}`);
  });
});

/** podman or docker when it answers and may run the real test; why not otherwise. */
function containerTool(): { tool: string } | { skip: string } {
  const wanted = process.env.ATELIER_TEST_CONTAINERS;
  if (wanted === '0') return { skip: 'ATELIER_TEST_CONTAINERS=0' };
  for (const tool of ['podman', 'docker']) {
    if (spawnSync(tool, ['info'], { timeout: 20_000 }).status !== 0) continue;
    const base = dockerfile.args.get('NODE_IMAGE') ?? '';
    if (wanted === '1' || spawnSync(tool, ['image', 'inspect', base], { timeout: 20_000 }).status === 0)
      return { tool };
    return { skip: `${tool} works but the base image ${base} is not present (ATELIER_TEST_CONTAINERS=1 pulls it)` };
  }
  return { skip: 'no working podman or docker' };
}

const found = containerTool();
const tool = 'tool' in found ? found.tool : '';
if ('skip' in found) console.info(`test/container.test.ts: the image is not built here: ${found.skip}`);

describe.skipIf(!tool)('the image, built and run', () => {
  const IMAGE = 'atelier-test:latest';
  const name = `atelier-test-${process.pid}`;
  let base = '';
  const cli = (...args: string[]) => run(tool, args, { maxBuffer: 64 * 1024 * 1024, timeout: 900_000 });

  beforeAll(async () => {
    // podman writes OCI images by default, which have no HEALTHCHECK.
    await cli('build', ...(tool === 'podman' ? ['--format', 'docker'] : []), '-t', IMAGE, ROOT);
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    await cli('run', '-d', '--name', name, '-p', `127.0.0.1:${port}:8080`, '-e', `ATELIER_PUBLIC_URL=${base}`, IMAGE);
    for (;;) {
      const ok = await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      const { stdout } = await cli('inspect', '--format', '{{.State.Running}}', name);
      if (stdout.trim() !== 'true') throw new Error(`the container stopped:\n${(await cli('logs', name)).stderr}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }, 900_000);

  afterAll(async () => {
    await cli('rm', '-f', '-v', name).catch(() => undefined);
  });

  it('passes its own health check, runs as `node`, serves the built console', async () => {
    const [image] = JSON.parse((await cli('image', 'inspect', IMAGE)).stdout) as {
      Config: { User: string; Healthcheck?: { Test: string[] } };
      Healthcheck?: { Test: string[] };
    }[];
    expect(image?.Config.User).toBe('node');
    const test = image?.Config.Healthcheck?.Test ?? image?.Healthcheck?.Test ?? [];
    expect(test[0]).toBe('CMD');
    await cli('exec', name, ...test.slice(1));
    expect((await cli('exec', name, 'id', '-u')).stdout.trim()).not.toBe('0');
    const page = await fetch(`${base}/console/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Atelier console');
  });

  it('bootstraps a key with `atelier admin bootstrap` and serves the API with it', async () => {
    const { stdout } = await cli('exec', name, 'atelier', 'admin', 'bootstrap', '--json');
    const { apiKey } = JSON.parse(stdout) as { apiKey: string };
    const headers = { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' };
    const created = await fetch(`${base}/v1/brands`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        name: 'Acme Outdoor',
        industry: 'Outdoor gear',
        description: 'Tough gear for long trails.',
        mission: 'Get people outside.',
        values: ['durability'],
        tone: ['Friendly'],
        voice: ['plain-spoken'],
      }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const got = await fetch(`${base}/v1/brands/${id}`, { headers });
    expect(((await got.json()) as { name: string }).name).toBe('Acme Outdoor');
    // Written to the /data volume by the unprivileged user.
    expect((await cli('exec', name, 'ls', '/data')).stdout).toContain('atelier.db');
  });

  it('stops on SIGTERM through its own graceful shutdown (exit code 0)', async () => {
    await cli('stop', '-t', '30', name);
    expect((await cli('inspect', '--format', '{{.State.ExitCode}}', name)).stdout.trim()).toBe('0');
  });
});
