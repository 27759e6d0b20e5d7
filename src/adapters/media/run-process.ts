import { spawn } from 'node:child_process';
import { describeMs } from './limits.ts';
import { MediaError } from './media-error.ts';

export interface RunOptions {
  timeoutMs: number;
  /** Largest stdout kept; past it the process is killed and the run fails (TOO_LARGE). */
  maxStdoutBytes: number;
  /** Name used in messages (`ffprobe`, `ffmpeg`). */
  label: string;
  /** Kills the process (SIGKILL) when aborted; the run then rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface RunResult {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  /** The last 16 KiB of stderr, for error messages. */
  stderr: string;
}

const STDERR_KEEP = 16 * 1024;

/**
 * Runs a binary with an argument list (never through a shell), no stdin, a hard timeout (SIGKILL)
 * and a bound on stdout. Resolves with the exit status; the caller decides what a non-zero exit means.
 * Rejects with TIMEOUT or TOO_LARGE (MediaError), the abort reason when `signal` aborts (the
 * process is killed first), or with the spawn error (ENOENT) as is.
 */
export function runProcess(bin: string, args: readonly string[], opts: RunOptions): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { shell: false, stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    const chunks: Buffer[] = [];
    let stdoutBytes = 0;
    let stderr = '';
    let failure: unknown;
    const kill = (err: unknown) => {
      failure ??= err;
      child.kill('SIGKILL');
    };
    const onAbort = () => kill(opts.signal?.reason ?? new Error('aborted'));
    if (opts.signal?.aborted) onAbort();
    else opts.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = setTimeout(
      () =>
        kill(
          new MediaError('TIMEOUT', `${opts.label} took longer than ${describeMs(opts.timeoutMs)} and was stopped.`),
        ),
      opts.timeoutMs,
    );
    child.stdout.on('data', (chunk: Buffer) => {
      stdoutBytes += chunk.length;
      if (stdoutBytes > opts.maxStdoutBytes) {
        kill(new MediaError('TOO_LARGE', `${opts.label} produced more than ${opts.maxStdoutBytes} bytes of output.`));
        return;
      }
      chunks.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEEP);
    });
    const done = () => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    };
    child.on('error', (err) => {
      done();
      reject(err);
    });
    child.on('close', (exitCode, signal) => {
      done();
      if (failure) reject(failure);
      else resolve({ exitCode, signal, stdout: Buffer.concat(chunks), stderr });
    });
  });
}

/** The most telling line of a tool's stderr (the last non-empty one), for a human message. */
export function lastStderrLine(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return lines.at(-1) ?? '';
}
