import type { ChildProcess } from 'node:child_process';
import { runCli } from '../../src/cli/run.ts';

/** What an `atelier` command answered. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A real process's exit code and output. */
export function collect(child: ChildProcess): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * `atelier <args>` in this process: the same `runCli` that src/main.ts runs, its output captured
 * and its settings from `env`. The modules stay loaded between commands, which is what makes
 * this much cheaper than a process per command; the tests that are about the process itself
 * (exit codes reaching the shell, npm run, stdout being only JSON) keep real ones.
 */
export async function atelierInProcess(args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    args,
    {
      out: (line) => {
        stdout += `${line}\n`;
      },
      err: (text) => {
        stderr += text;
      },
      tty: false,
    },
    env,
  );
  return { code, stdout, stderr };
}
