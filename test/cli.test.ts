import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpDir } from './helpers/app.ts';
import { freePort } from './helpers/assets.ts';
import { atelierInProcess, type CliResult, collect } from './helpers/cli.ts';
import {
  bareEnv,
  cleanEnv as cleanProcessEnv,
  healthy,
  kill,
  type Proc,
  atelier as start,
  workerReady,
} from './helpers/processes.ts';

/**
 * The CLI end to end on a temporary data directory, next to a real `serve` process on the same
 * directory, checked over real HTTP. What is about the process (exit codes, stdout holding only
 * the JSON, npm run, start-up failures) runs real `atelier` processes (`node src/main.ts …`); the
 * rest runs the same runCli in this process.
 */
const ROOT = path.resolve(import.meta.dirname, '..');
const SLOW = 180_000; // each process loads the app; the machine may be busy

describe('atelier CLI', () => {
  const dataDir = tmpDir('atelier-cli-');
  const env = (extra: Record<string, string> = {}) => bareEnv({ ATELIER_DATA_DIR: dataDir, ...extra });
  /** The same command through runCli in this process (no process start: most cases need none). */
  const inProcess = (args: string[], extra: Record<string, string> = {}) => atelierInProcess(args, env(extra));
  const atelier = (args: string[], extra: Record<string, string> = {}) =>
    collect(spawn(process.execPath, ['src/main.ts', ...args], { cwd: ROOT, env: env(extra) }));
  /** Runs an admin command that must succeed with --json; returns the parsed output. */
  async function admin<T = Record<string, unknown>>(...args: string[]): Promise<T> {
    const r = await inProcess(['admin', ...args, '--json']);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return JSON.parse(r.stdout) as T;
  }

  let server: ChildProcess;
  let serverOut = '';
  let serverExit: Promise<CliResult>;
  let base: string;
  /** Status of an authenticated request to the running server (403 on a console route = key valid). */
  const statusWith = async (key: string) =>
    (await fetch(`${base}/v1/api-keys`, { headers: { authorization: `Bearer ${key}` } })).status;

  beforeAll(async () => {
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    server = spawn(process.execPath, ['src/main.ts', 'serve'], {
      cwd: ROOT,
      env: env({ PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info', ATELIER_LOG_FORMAT: 'pretty' }),
    });
    serverExit = collect(server);
    server.stdout?.on('data', (d) => {
      serverOut += d;
    });
    const deadline = Date.now() + SLOW / 2;
    let exited = false;
    void serverExit.then(() => {
      exited = true;
    });
    for (;;) {
      if (exited) throw new Error(`serve exited early: ${(await serverExit).stderr}`);
      const ok = await fetch(`${base}/healthz`).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      if (Date.now() > deadline) throw new Error('serve did not start in time');
      await new Promise((r) => setTimeout(r, 200));
    }
  }, SLOW);

  afterAll(async () => {
    if (server && server.exitCode === null) {
      server.kill('SIGTERM');
      const r = await serverExit;
      expect(r.code, r.stderr).toBe(0);
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  }, SLOW);

  it('the server’s terminal is quiet and readable: no JSON lines, no line for a successful request', async () => {
    for (let i = 0; i < 3; i++) expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect((await fetch(`${base}/v1/nothing-here`)).status).toBe(404);
    await expect.poll(() => serverOut, { timeout: 5000 }).toMatch(/INFO {2}GET \/v1\/nothing-here 404 \d+ms/);
    expect(serverOut).toMatch(/Atelier is running on/);
    expect(serverOut).not.toMatch(/^\{/m);
    expect(serverOut).not.toMatch(/GET \/healthz 200/);
  });

  it(
    'admin bootstrap --json prints exactly one JSON object whose key works on the running server',
    async () => {
      const r = await atelier(['admin', 'bootstrap', '--json']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.endsWith('\n')).toBe(true);
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
      const out = JSON.parse(r.stdout);
      expect(Object.keys(out).sort()).toEqual(['apiKey', 'organizationId', 'userId']);
      expect(out.apiKey).toMatch(/^atl_dev_[0-9A-Za-z]{16}\.[0-9A-Za-z]{43}$/);
      expect(await statusWith(out.apiKey)).toBe(403);
      expect(await statusWith(`${out.apiKey.slice(0, -1)}${out.apiKey.endsWith('x') ? 'y' : 'x'}`)).toBe(401);
      const banner = await atelier(['admin', 'bootstrap']);
      expect(banner.stdout).toMatch(/API key \(shown once, store it now\): atl_dev_/);
      // The command says which database it wrote to (stderr: stdout stays the answer)…
      expect(r.stderr).toBe(`atelier admin: database SQLite ${path.join(dataDir, 'atelier.db')}\n`);
      // …and refuses one the running server of this install does not use (a terminal with another
      // DATABASE_URL, or without the server's), before touching it.
      const elsewhere = await atelier(['admin', 'bootstrap', '--json'], {
        DATABASE_URL: 'postgres://nobody@127.0.0.1:1/elsewhere',
      });
      expect(elsewhere.code).toBe(1);
      expect(elsewhere.stdout).toBe('');
      expect(elsewhere.stderr).toContain('would use PostgreSQL postgres://127.0.0.1:1/elsewhere');
      expect(elsewhere.stderr).toContain(`uses SQLite ${path.join(dataDir, 'atelier.db')}`);
    },
    SLOW,
  );

  it(
    'npm run -s atelier -- admin bootstrap --json prints only the JSON',
    async () => {
      const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
      const r = await collect(
        spawn(npm, ['run', '-s', 'atelier', '--', 'admin', 'bootstrap', '--json'], { cwd: ROOT, env: env() }),
      );
      expect(r.code, r.stderr).toBe(0);
      expect(Object.keys(JSON.parse(r.stdout)).sort()).toEqual(['apiKey', 'organizationId', 'userId']);
      expect(r.stdout.trim().split('\n')).toHaveLength(1);
    },
    SLOW,
  );

  it(
    'manages organizations, users and keys, each change seen by the running server on the next request',
    async () => {
      const org = await admin<{ id: string; name: string; planSlug: string }>(
        'org',
        'create',
        '--name',
        'Acme',
        '--plan',
        'pro',
      );
      expect(org).toMatchObject({ name: 'Acme', planSlug: 'pro' });
      expect((await admin('org', 'set-plan', org.id, 'business')).planSlug).toBe('business');
      expect(org).toMatchObject({ contentCredentials: true }); // on by default
      expect(await admin('org', 'set-content-credentials', org.id, 'off')).toMatchObject({ contentCredentials: false });
      expect(await admin('org', 'set-content-credentials', org.id, 'on')).toMatchObject({ contentCredentials: true });
      const orgs = await admin<{ id: string; planSlug: string }[]>('org', 'list');
      expect(orgs.find((o) => o.id === org.id)?.planSlug).toBe('business');

      const user = await admin<{ id: string }>('user', 'add', '--org', org.id, '--name', 'Bob', '--role', 'viewer');
      expect(user).toMatchObject({ organizationId: org.id, name: 'Bob', role: 'viewer', platformAdmin: false });
      expect(await admin('user', 'set-role', user.id, 'admin')).toMatchObject({ id: user.id, role: 'admin' });

      const created = await admin<{ keyId: string; apiKey: string; name: string }>(
        'key',
        'create',
        '--user',
        user.id,
        '--name',
        'ci',
        '--expires',
        '30d',
      );
      expect(created).toMatchObject({ name: 'ci', userId: user.id, organizationId: org.id, revokedAt: null });
      expect(await statusWith(created.apiKey)).toBe(403);

      const regenerated = await admin<{ keyId: string; apiKey: string; name: string }>(
        'key',
        'regenerate',
        created.keyId,
      );
      expect(regenerated).toMatchObject({ keyId: created.keyId, name: 'ci' });
      expect(await statusWith(created.apiKey)).toBe(401);
      expect(await statusWith(regenerated.apiKey)).toBe(403);

      // Operator powers are an explicit grant, never a side effect of bootstrap.
      const everyOrg = async () =>
        (
          await fetch(`${base}/v1/brands?all_organizations=true`, {
            headers: { authorization: `Bearer ${regenerated.apiKey}` },
          })
        ).status;
      expect(await everyOrg()).toBe(403);
      expect(await admin('operator', 'add', user.id)).toMatchObject({ id: user.id, platformAdmin: true });
      expect((await admin<{ id: string }[]>('operator', 'list')).map((u) => u.id)).toContain(user.id);
      await expect.poll(everyOrg, { timeout: 10_000 }).toBe(200);
      expect(await admin('operator', 'remove', user.id)).toMatchObject({ platformAdmin: false });
      await expect.poll(everyOrg, { timeout: 10_000 }).toBe(403);

      expect((await admin('key', 'revoke', created.keyId)).revokedAt).toEqual(expect.any(String));
      expect(await statusWith(regenerated.apiKey)).toBe(401);
      const list = await inProcess(['admin', 'key', 'list', '--org', org.id]);
      expect(list.code).toBe(0);
      expect(list.stdout).toMatch(new RegExp(`^${created.keyId} +dev +revoked +ci +user=${user.id}`, 'm'));

      const second = await admin<{ apiKey: string }>('key', 'create', '--user', user.id);
      expect(await statusWith(second.apiKey)).toBe(403);
      expect(await admin('user', 'remove', user.id)).toEqual({ removed: user.id });
      expect(await statusWith(second.apiKey)).toBe(401);
    },
    SLOW,
  );

  it(
    'invites a console user: user add prints a one-time link that signs in; set-password reads stdin',
    async () => {
      const org = await admin<{ id: string }>('org', 'create', '--name', 'Console Co');
      const user = await admin<{ id: string; inviteUrl: string }>(
        'user',
        'add',
        '--org',
        org.id,
        '--name',
        'Cleo',
        '--email',
        'cleo@example.com',
        '--role',
        'admin',
      );
      // The running server's public URL (it recorded it), not the admin command's default.
      const port = new URL(base).port;
      expect(user.inviteUrl).toMatch(new RegExp(`^http://localhost:${port}/console/#/invite/[A-Za-z0-9_-]{43}$`));
      const token = user.inviteUrl.split('/').pop() as string;
      const post = (url: string, body: unknown) =>
        fetch(`${base}${url}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
      const accepted = await post('/console/api/invites/accept', { token, password: 'correct horse battery' });
      expect(accepted.status).toBe(200);
      expect(((await accepted.json()) as { user: unknown }).user).toMatchObject({
        id: user.id,
        email: 'cleo@example.com',
        role: 'admin',
      });
      expect((await post('/console/api/invites/accept', { token, password: 'correct horse battery' })).status).toBe(
        400,
      );
      const login = await post('/console/api/login', { email: 'Cleo@example.com', password: 'correct horse battery' });
      expect(login.status).toBe(200);
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] as string;
      expect((await fetch(`${base}/v1/api-keys`, { headers: { cookie } })).status).toBe(200);

      const again = await admin<{ inviteUrl: string }>('user', 'invite', user.id);
      expect(again.inviteUrl).not.toBe(user.inviteUrl);

      const child = spawn(process.execPath, ['src/main.ts', 'admin', 'user', 'set-password', user.id], {
        cwd: ROOT,
        env: env(),
      });
      child.stdin?.end('a brand new passphrase\n');
      const set = await collect(child);
      expect(set.code, set.stderr).toBe(0);
      // The new password signs in, the old one no longer does, and the old session was ended.
      expect(
        (await post('/console/api/login', { email: 'cleo@example.com', password: 'a brand new passphrase' })).status,
      ).toBe(200);
      expect(
        (await post('/console/api/login', { email: 'cleo@example.com', password: 'correct horse battery' })).status,
      ).toBe(401);
      expect((await fetch(`${base}/v1/api-keys`, { headers: { cookie } })).status).toBe(401);
    },
    SLOW,
  );

  it(
    'exits 1 with a message when an operation is refused',
    async () => {
      const results = await Promise.all([
        atelier(['admin', 'org', 'create', '--name', 'X', '--plan', 'platinum']), // the exit code, from a process
        inProcess(['admin', 'key', 'revoke', 'AAAAAAAAAAAAAAAA']),
        inProcess(['admin', 'org', 'set-overrides', '00000000-0000-0000-0000-000000000000', '{"colour":1}']),
      ]);
      const messages = [/unknown plan "platinum"/, /no API key AAAAAAAAAAAAAAAA/, /invalid overrides/];
      results.forEach((r, i) => {
        expect(r.code).toBe(1);
        expect(r.stdout).toBe('');
        expect(r.stderr).toMatch(messages[i] as RegExp);
        expect(r.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
      });
    },
    SLOW,
  );

  it(
    'exits 2 with a message on bad usage',
    async () => {
      const cases: [string[], RegExp][] = [
        [[], /Usage: atelier <command>/],
        [['frobnicate'], /unknown command "frobnicate"/],
        [['admin'], /unknown admin command/],
        [['admin', 'org', 'create'], /org create needs --name/],
        [['admin', 'key', 'create', '--user', 'u', '--colour', 'red'], /Unknown option '--colour'/],
        [['admin', 'key', 'create', '--user', 'u', '--expires', 'soon'], /--expires: expected 30d/],
      ];
      // The first from a process (its exit code reaches the shell), the rest through runCli.
      const results = await Promise.all(cases.map(([args], i) => (i === 1 ? atelier(args) : inProcess(args))));
      results.forEach((r, i) => {
        const [args, message] = cases[i] as [string[], RegExp];
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stderr, args.join(' ')).toMatch(message);
        expect(r.stdout, args.join(' ')).toBe('');
      });
    },
    SLOW,
  );

  it(
    'refuses to start on an invalid setting, naming it',
    async () => {
      const cases: [string[], Record<string, string>, RegExp][] = [
        [['serve'], { PORT: 'abc' }, /Invalid setting PORT: expected a whole number, got "abc"/],
        [['serve'], { ATELIER_ENV: 'qa' }, /Invalid setting ATELIER_ENV: expected one of dev, staging, prod/],
        [['migrate'], { DATABASE_URL: 'mysql://x' }, /Invalid setting DATABASE_URL: expected a postgres/],
      ];
      // A setting is refused before anything starts: runCli in this process says the same as a process.
      const results = await Promise.all(cases.map(([args, extra]) => inProcess(args, extra)));
      results.forEach((r, i) => {
        const [, extra, message] = cases[i] as [string[], Record<string, string>, RegExp];
        expect(r.code, JSON.stringify(extra)).not.toBe(0);
        expect(r.stderr, JSON.stringify(extra)).toMatch(message);
        expect(r.stdout).not.toMatch(/Atelier is running/);
      });
    },
    SLOW,
  );

  it(
    'stops with one line naming the setting when the database cannot be reached or opened',
    async () => {
      const down =
        'atelier: cannot reach the database at DATABASE_URL=postgres://127.0.0.1:1/x (ECONNREFUSED); is PostgreSQL running?';
      const notAFolder = path.join(dataDir, 'a-file');
      fs.writeFileSync(notAFolder, '');
      const cases: [string[], Record<string, string>, string][] = [
        [['serve'], { DATABASE_URL: 'postgres://atelier:s3cret@127.0.0.1:1/x' }, down],
        [['worker'], { DATABASE_URL: 'postgres://atelier:s3cret@127.0.0.1:1/x' }, down],
        [['migrate'], { DATABASE_URL: 'postgres://atelier:s3cret@127.0.0.1:1/x' }, down],
        [
          ['migrate'],
          { ATELIER_DATA_DIR: notAFolder },
          `atelier: cannot open the data folder ATELIER_DATA_DIR=${notAFolder} (EEXIST): it is not a folder`,
        ],
      ];
      const results = await Promise.all(cases.map(([args, extra]) => atelier(args, extra)));
      results.forEach((r, i) => {
        const [args, , line] = cases[i] as [string[], Record<string, string>, string];
        expect(r.code, args.join(' ')).toBe(1);
        expect(r.stderr.trimEnd().split('\n').at(-1), args.join(' ')).toBe(line);
        expect(r.stderr, args.join(' ')).not.toMatch(/\n\s+at |s3cret|migration/);
      });
    },
    SLOW,
  );
});

describe('serve and worker with JSON logs (stdout piped, as in a container)', () => {
  const dataDir = tmpDir('atelier-cli-json-');
  afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  /** Every stdout line of a process, parsed: each must be one JSON log line. */
  const jsonLines = (stdout: string) =>
    stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => {
        try {
          return JSON.parse(l) as Record<string, unknown>;
        } catch {
          throw new Error(`a stdout line is not JSON: ${l}`);
        }
      });

  it(
    'says it started in one JSON log line, and nothing on stdout is plain text',
    async () => {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}`;
      // No ATELIER_LOG_FORMAT: a piped stdout means JSON, as in a container.
      const server = start(
        ['serve'],
        cleanProcessEnv({ ATELIER_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'info' }),
      );
      let worker: Proc | undefined;
      try {
        await healthy(base, server); // then the worker: two first starts would migrate the new file at once
        worker = start(['worker'], cleanProcessEnv({ ATELIER_DATA_DIR: dataDir })); // LOG_LEVEL=warn
        await workerReady(worker);
        expect((await fetch(`${base}/v1/nothing-here`)).status).toBe(404);
        await expect.poll(() => server.stdout(), { timeout: 5000 }).toContain('/v1/nothing-here');
      } finally {
        await Promise.all([kill(server, 'SIGTERM'), worker && kill(worker, 'SIGTERM')]);
      }
      const serverLines = jsonLines(server.stdout());
      expect(serverLines.find((l) => l.msg === 'listening')).toMatchObject({
        level: 30,
        url: `http://localhost:${port}/v1`,
        console: `http://localhost:${port}/console`,
        mode: 'embedded',
        workers: true,
        firstApiKey: 'npm run -s atelier -- admin bootstrap',
      });
      expect(serverLines.find((l) => l.path === '/v1/nothing-here')).toMatchObject({ msg: 'request', statusCode: 404 });
      // The worker logs at warn: its start line shows anyway, and its warning (no REDIS_URL) is JSON too.
      const workerLines = jsonLines((worker as Proc).stdout());
      expect(workerLines.map((l) => l.msg)).toContain('worker running');
      expect(workerLines.find((l) => l.level === 40)?.msg).toMatch(/meant for the scaled mode/);
    },
    SLOW,
  );
});
