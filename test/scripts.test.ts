import { spawnSync } from 'node:child_process';
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
