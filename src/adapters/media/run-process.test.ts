import { describe, expect, it } from 'vitest';
import { MediaError } from './media-error.ts';
import { lastStderrLine, runProcess } from './run-process.ts';

const node = process.execPath;
const opts = { timeoutMs: 10_000, maxStdoutBytes: 1024, label: 'The tool' };

describe('runProcess', () => {
  it('collects stdout, stderr and the exit code, without a shell', async () => {
    const r = await runProcess(
      node,
      ['-e', 'process.stdout.write(process.argv[1]); console.error("oops"); process.exit(3)', '$(echo hi) ; *'],
      opts,
    );
    expect(r.stdout.toString()).toBe('$(echo hi) ; *');
    expect(r.exitCode).toBe(3);
    expect(lastStderrLine(r.stderr)).toBe('oops');
  });

  it('kills a process that outlives its timeout', async () => {
    const started = Date.now();
    const err = await runProcess(node, ['-e', 'setInterval(() => {}, 1000)'], { ...opts, timeoutMs: 300 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(MediaError);
    expect(err).toMatchObject({ code: 'TIMEOUT', message: 'The tool took longer than 300 ms and was stopped.' });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('kills a process whose output passes the bound', async () => {
    const err = await runProcess(
      node,
      ['-e', 'setInterval(() => process.stdout.write("x".repeat(4096)), 1)'],
      opts,
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'TOO_LARGE' });
  });

  it('kills the process when the signal aborts, rejecting with its reason', async () => {
    const ac = new AbortController();
    const started = Date.now();
    const run = runProcess(process.execPath, ['-e', 'setTimeout(() => {}, 20000)'], {
      timeoutMs: 30_000,
      maxStdoutBytes: 1024,
      label: 'sleeper',
      signal: ac.signal,
    });
    setTimeout(() => ac.abort(new Error('stop now')), 100);
    await expect(run).rejects.toThrow('stop now');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('passes a spawn failure through as is', async () => {
    await expect(runProcess('/nonexistent/ffprobe', [], opts)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('lastStderrLine picks the last non-empty line', () => {
    expect(lastStderrLine('a\n\n  b  \n\n')).toBe('b');
    expect(lastStderrLine('')).toBe('');
  });
});
