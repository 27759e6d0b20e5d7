import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpDir } from '../../test/helpers/app.ts';
import { atelierInProcess, collect } from '../../test/helpers/cli.ts';
import { bareEnv } from '../../test/helpers/processes.ts';
import { CAP_PNG, type RealServer, startServer } from './server.ts';

/**
 * The API client commands end to end against a real Atelier listening in this process, with a
 * clean environment: no database settings (a broken DATABASE_URL even, which the server commands
 * would refuse), no profile file but the test's own. Two cases run real `bin/atelier.mjs`
 * processes (the bin, exit codes reaching the shell); the rest run the same runCli in this process.
 */
const ROOT = path.resolve(import.meta.dirname, '../..');
const SLOW = 120_000;
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47]);

const cleanEnv = (extra: Record<string, string>) =>
  bareEnv({ DATABASE_URL: 'not-a-url', ...extra }, /^XDG_CONFIG_HOME$/);

describe('atelier API client commands (real server)', () => {
  let s: RealServer;
  const work = tmpDir('atelier-cli-client-');
  const configFile = path.join(work, 'config.json');
  let env: (extra?: Record<string, string>) => NodeJS.ProcessEnv;
  /** A real `bin/atelier.mjs` process: for what is about the process (the bin, exit codes). */
  const real = (args: string[], extra: Record<string, string> = {}) =>
    collect(spawn(process.execPath, ['bin/atelier.mjs', ...args], { cwd: ROOT, env: env(extra) }));
  /** The same command through runCli in this process. */
  const atelier = (args: string[], extra: Record<string, string> = {}) => atelierInProcess(args, env(extra));
  /** Runs a command that must succeed with --json; returns the parsed stdout. */
  async function json<T = Record<string, unknown>>(...args: string[]): Promise<T> {
    const r = await atelier([...args, '--json']);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    expect(r.stdout.trim().split('\n')).toHaveLength(1);
    return JSON.parse(r.stdout) as T;
  }
  let brandId: string;
  let capId: string;

  beforeAll(async () => {
    s = await startServer();
    env = (extra = {}) =>
      cleanEnv({ ATELIER_URL: s.baseUrl, ATELIER_API_KEY: s.apiKey, ATELIER_CONFIG: configFile, ...extra });
  }, SLOW);
  afterAll(async () => {
    await s?.close();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('usage: a human summary, and --json that parses', async () => {
    const r = await real(['usage']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^Plan: enterprise/);
    expect(r.stdout).toMatch(/image_generations\s+0\s+/);
    const u = await json<{ plan_slug: string; pools: Record<string, { usage: number }> }>('usage');
    expect(u.plan_slug).toBe('enterprise');
    expect(u.pools.image_generations!.usage).toBe(0);
  });

  it(
    'brands create, list, get, update',
    async () => {
      const r = await atelier([
        'brands',
        'create',
        '--name',
        'Solidus',
        '--industry',
        'Apparel',
        '--description',
        'Caps and totes for city walkers.',
        '--tone',
        'Friendly,Playful',
        '--values',
        'durability',
      ]);
      expect(r.code, r.stderr).toBe(0);
      brandId = /^Created brand ([0-9a-f-]{36}) "Solidus"$/.exec(r.stdout.trim())![1]!;
      const list = await atelier(['brands', 'list']);
      expect(list.code, list.stderr).toBe(0);
      expect(list.stdout).toMatch(new RegExp(`^ID\\s+NAME\\s+INDUSTRY\\s+DNA\\n${brandId}\\s+Solidus\\s+Apparel`));
      const page = await json<{ data: { id: string; tone: string[] }[] }>('brands', 'list');
      expect(page.data.map((b) => b.id)).toEqual([brandId]);
      expect(page.data[0]!.tone).toEqual(['Friendly', 'Playful']);
      const updated = await json<{ mission: string }>('brands', 'update', brandId, '--mission', 'Last for years.');
      expect(updated.mission).toBe('Last for years.');
      expect((await json<{ mission: string }>('brands', 'get', brandId)).mission).toBe('Last for years.');
    },
    SLOW,
  );

  it(
    'assets upload --wait: progress on stderr (plain lines, not a TTY), the asset complete',
    async () => {
      const r = await atelier(['assets', 'upload', brandId, CAP_PNG, '--wait']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(
        /^ASSET\s+STATUS\s+TYPE\s+FILE\n[0-9a-f-]{36}\s+complete\s+\w+\s+solidus_cap_red_1\.png\n$/,
      );
      expect(r.stderr).toContain(': initiate\n');
      expect(r.stderr).toMatch(/: complete \(\d+s\)\n/);
      expect(r.stderr).not.toContain('\r');
      capId = /^([0-9a-f-]{36})/m.exec(r.stdout.split('\n')[1]!)![1]!;
    },
    SLOW,
  );

  it(
    'scenes create --wait --out DIR saves the four variations as PNG files; videos create --wait --out saves an MP4',
    async () => {
      const out = path.join(work, 'out');
      const r = await atelier([
        'scenes',
        'create',
        brandId,
        '--prompt',
        'The red cap on a concrete ledge at golden hour',
        '--product',
        capId,
        '--aspect',
        '1:1',
        '--wait',
        '--out',
        out,
        '--json',
      ]);
      expect(r.code, r.stderr).toBe(0);
      const forge = JSON.parse(r.stdout) as {
        sceneForgeId: string;
        status: string;
        variations: { asset: { assetId: string } }[];
      };
      expect(forge.status).toBe('completed');
      const files = fs.readdirSync(out).sort();
      expect(files).toEqual([1, 2, 3, 4].map((n) => `${forge.sceneForgeId}-${n}.png`));
      for (const f of files) expect(fs.readFileSync(path.join(out, f)).subarray(0, 4)).toEqual(PNG);
      expect(r.stderr).toMatch(/scene [0-9a-f-]{36}: completed 100%/);

      const v = await atelier([
        'videos',
        'create',
        brandId,
        '--start',
        forge.variations[0]!.asset.assetId,
        '--prompt',
        'Slow push-in on the cap',
        '--duration',
        '2',
        '--size',
        '456x256',
        '--wait',
        '--out',
        out,
      ]);
      expect(v.code, v.stderr).toBe(0);
      const groupId = /^Video group:\s+([0-9a-f-]{36})$/m.exec(v.stdout)![1]!;
      expect(v.stdout).toMatch(/^Status:\s+completed$/m);
      const mp4 = fs.readFileSync(path.join(out, `${groupId}-1.mp4`));
      expect(mp4.subarray(4, 8).toString('latin1')).toBe('ftyp');
    },
    SLOW,
  );

  it(
    'paths are the user’s: relative files and --out resolve against the directory the command was started in (INIT_CWD under npm run); a missing file is one line, exit 1',
    async () => {
      const here = path.join(work, 'here');
      fs.mkdirSync(here, { recursive: true });
      fs.copyFileSync(CAP_PNG, path.join(here, 'cap.png'));
      const started = { INIT_CWD: here };
      const up = await atelier(['assets', 'upload', brandId, 'cap.png', '--wait', '--json'], started);
      expect(up.code, up.stderr).toBe(0);
      const asset = JSON.parse(up.stdout) as { id: string };
      const got = await atelier(['assets', 'get', asset.id, '--out', 'downloads'], started);
      expect(got.code, got.stderr).toBe(0);
      expect(fs.readdirSync(path.join(here, 'downloads'))).toEqual([`${asset.id}.png`]);
      expect(fs.existsSync(path.join(ROOT, 'downloads'))).toBe(false);

      const missing = await atelier(['assets', 'upload', brandId, 'nope.png'], started);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toBe(`atelier: ${path.join(here, 'nope.png')}: no such file\n`);
    },
    SLOW,
  );

  it('a bad key: exit 1 with the REST error code and request id in the message', async () => {
    // The same key with its last character changed (to another one: the last may already be an x).
    const bad = s.apiKey.slice(0, -1) + (s.apiKey.endsWith('x') ? 'y' : 'x');
    const r = await real(['brands', 'list'], { ATELIER_API_KEY: bad });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^atelier: UNAUTHORIZED: .+ \(HTTP 401, request [0-9a-f-]{36}\)\n$/);
    expect(r.stdout).toBe('');
    const nf = await atelier(['scenes', 'get', '0b6f7f0e-3c1f-4d7a-9d55-2f6f3f4e5a6b']);
    expect(nf.code).toBe(1);
    expect(nf.stderr).toMatch(/^atelier: \w*NOT_FOUND: /);
  });

  it('usage errors exit 2 and print the command usage', async () => {
    for (const args of [
      ['brands', 'create', '--industry', 'x'],
      ['brands', 'frob'],
      ['scenes', 'create', 'b', '--prompt', 'p', '--bogus'],
      ['videos', 'create', 'b', '--prompt', 'p', '--size', 'huge'],
      ['assets', 'upload'],
      ['usage', 'extra'],
    ]) {
      const r = await atelier(args);
      expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(2);
      expect(r.stderr).toMatch(/^atelier: /);
    }
    // A usage error is one even with no server configured.
    const unconfigured = await atelier(['brands', 'create'], { ATELIER_URL: '', ATELIER_API_KEY: '' });
    expect(unconfigured.code, unconfigured.stderr).toBe(2);
    expect(unconfigured.stderr).toContain('missing --name');
    const help = await atelier(['videos', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^atelier videos <command>/);
  });

  it('configuration from a profile file: --profile NAME, the default profile, and clear errors', async () => {
    fs.writeFileSync(
      configFile,
      JSON.stringify({
        defaultProfile: 'local',
        profiles: {
          local: { url: s.baseUrl, apiKey: s.apiKey },
          broken: { url: s.baseUrl, apiKey: 'atl_dev_nope.nope' },
        },
      }),
    );
    const noEnv = { ATELIER_URL: '', ATELIER_API_KEY: '' };
    expect((await atelier(['usage'], noEnv)).code).toBe(0);
    expect((await atelier(['usage', '--profile', 'local'], noEnv)).code).toBe(0);
    const broken = await atelier(['usage', '--profile', 'broken']);
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('UNAUTHORIZED');
    const missing = await atelier(['usage', '--profile', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`profile "nope" not found in ${configFile}`);
    fs.rmSync(configFile);
    const none = await atelier(['usage'], noEnv);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/no server configured: set ATELIER_URL and ATELIER_API_KEY/);
  });
});
