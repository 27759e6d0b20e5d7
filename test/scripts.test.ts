import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/** scripts/guarded, which CI wraps the suite in: a died process fails a run that exited 0. */
const ROOT = path.resolve(import.meta.dirname, '..');
const guarded = (script: string) =>
  spawnSync('bash', [path.join(ROOT, 'scripts/guarded'), 'bash', '-c', script], { encoding: 'utf8' });

describe('scripts/guarded', () => {
  it('passes a clean run through with its output and exit code 0', () => {
    const r = guarded('echo "Tests  3 passed (3)"');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('3 passed');
  });

  it.each([
    ['a native assertion', 'Assertion failed: (env) != nullptr, file ../src/api/hooks.cc'],
    ['a native stack trace', '----- Native stack trace -----'],
    ['a fatal V8 error', 'FATAL ERROR: Reached heap limit Allocation failed'],
    ['a worker that exited', '[vitest-pool]: Worker exited unexpectedly'],
    ['a coloured report line', '\\x1b[31mSegmentation fault\\x1b[0m (core dumped)'],
  ])('fails a run that exited 0 but printed %s', (_name, line) => {
    const r = guarded(`printf '%b\\n' 'Tests  3 passed (3)' '${line}' >&2; exit 0`);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/scripts\/guarded: '.+' at line 2/);
  });

  it('keeps the exit code of a failing run', () => {
    expect(guarded('exit 7').status).toBe(7);
  });
});

describe('scripts/check-node.mjs (the Node.js version gate)', () => {
  it('refuses Node.js 20 and 22.17 with one line naming the running and the required version and the fix', async () => {
    const { nodeProblem, MINIMUM } = await import('../scripts/check-node.mjs');
    for (const node of ['20.20.2', '22.11.9', '22.17.1', '18.0.0']) {
      const problem = nodeProblem({ node } as NodeJS.ProcessVersions);
      expect(problem).toMatch(new RegExp(`needs Node.js ${MINIMUM.replaceAll('.', '\\.')} or newer`));
      expect(problem).toContain(`this is Node.js ${node}`);
      expect(problem).toMatch(/Install Node.js 24/);
      expect(problem).toContain('scripts/node 24 npm start');
      expect(problem).not.toContain('\n');
    }
    for (const node of ['22.18.0', '22.23.3', '24.21.0', '25.0.0']) {
      expect(nodeProblem({ node } as NodeJS.ProcessVersions)).toBeUndefined();
    }
  });

  it('runs first in npm install, npm start, npm test and the atelier command, and passes on this Node.js', () => {
    const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    };
    expect(pkg.scripts.preinstall).toBe('node scripts/check-node.mjs');
    for (const s of ['start', 'test', 'atelier']) expect(pkg.scripts[s]).toMatch(/^node scripts\/check-node\.mjs && /);
    expect(fs.readFileSync(path.join(ROOT, 'bin/atelier.mjs'), 'utf8')).toMatch(
      /nodeProblem\(\)[\s\S]*import\('\.\.\/src\/main\.ts'\)/,
    );
    const r = spawnSync(process.execPath, ['scripts/check-node.mjs'], { cwd: ROOT, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
  });
});
