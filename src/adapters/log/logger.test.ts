import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const LOGGER = path.join(import.meta.dirname, 'logger.ts');

/**
 * A Node.js process that makes JSON loggers as the server does and runs `body` with them (`a`
 * and `b`, two loggers of one process), its stdout a pipe; resolves with the lines it wrote, each
 * with the time it arrived (ms after the start), and its exit code.
 */
function run(body: string) {
  const script = `
    const { createLogger } = await import(${JSON.stringify(LOGGER)});
    const a = createLogger({ logLevel: 'info', logFormat: 'json' });
    const b = createLogger({ logLevel: 'info', logFormat: 'json' }).child({ component: 'b' });
    ${body}
  `;
  const started = Date.now();
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
  const lines: { msg: string; at: number; component?: string }[] = [];
  let rest = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (rest + chunk).split('\n');
    rest = parts.pop() ?? '';
    for (const p of parts) lines.push({ ...JSON.parse(p), at: Date.now() - started });
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  return { lines, exited, child };
}

describe('JSON logs on stdout (gathered, then written)', () => {
  it('keeps the order of lines from every logger of the process, and writes the last ones at process.exit', async () => {
    const { lines, exited } = run(`
      for (let i = 0; i < 500; i++) (i % 2 ? a : b).info({ i }, 'line ' + i);
      a.fatal('bye');
      process.exit(3);
    `);
    expect(await exited).toBe(3);
    expect(lines.map((l) => l.msg)).toEqual([...Array.from({ length: 500 }, (_, i) => `line ${i}`), 'bye']);
    expect(lines.filter((l) => l.component === 'b')).toHaveLength(250);
  });

  it('writes a lone line while the process goes on (after LOG_BUFFER.flushMs at most)', async () => {
    const { lines, exited, child } = run(`
      a.info('listening');
      setInterval(() => {}, 1000);
    `);
    try {
      await expect.poll(() => lines.length, { timeout: 5000 }).toBe(1);
      expect(lines[0]!.msg).toBe('listening');
    } finally {
      child.kill();
      await exited;
    }
  });

  it('writes what an uncaught error leaves behind', async () => {
    const { lines, exited } = run(`
      a.info('before');
      setTimeout(() => { throw new Error('boom'); }, 10);
    `);
    expect(await exited).toBe(1);
    expect(lines.map((l) => l.msg)).toEqual(['before']);
  });
});
