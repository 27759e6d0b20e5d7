import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describeMs } from './limits.ts';
import { MediaError } from './media-error.ts';

/** Request and result shapes of the tasks in parser-child.mjs. */
export interface ParserTasks {
  pdf: {
    input: { filePath: string; maxPages: number; maxChars: number; thumbnailSize: number };
    result: {
      pageCount: number;
      title?: string;
      author?: string;
      pageTexts: string[];
      firstPage?: { width: number; height: number };
      thumbnail?: Uint8Array;
      thumbnailError?: string;
    };
  };
  docx: { input: { filePath: string }; result: { text: string } };
  doc: { input: { filePath: string }; result: { text: string } };
  font: {
    input: { filePath: string };
    result: {
      collection: boolean;
      familyName?: string;
      subfamilyName?: string;
      fullName?: string;
      postscriptName?: string;
      version?: string;
      numGlyphs?: number;
      weightClass?: number;
      italic?: boolean;
    };
  };
}

export interface IsolateOptions {
  timeoutMs: number;
  /** Heap bound of the parser process (`--max-old-space-size`); past it the run is TOO_LARGE. */
  maxHeapMb: number;
  /** What is being read, for messages: a noun such as `PDF`, `document`, `font`. */
  label: string;
}

/** A parser's own failure, with the library's error name (PasswordException, InvalidPDFException, ...). */
export class ParserFailure extends Error {
  readonly parserError: string;

  constructor(parserError: string, message: string) {
    super(message);
    this.parserError = parserError;
    this.name = 'ParserFailure';
  }

  /** This failure as a CORRUPT MediaError: `message` for people, the parser's own words in details. */
  corrupt(message: string): MediaError {
    return new MediaError('CORRUPT', message, { parserError: this.parserError, parserMessage: this.message });
  }
}

const CHILD_SCRIPT = fileURLToPath(new URL('./parser-child.mjs', import.meta.url));
const STDERR_KEEP = 4096;

/**
 * Runs one parser task in a fresh Node process with a heap limit and a deadline (SIGKILL), so an
 * endless loop or runaway allocation in a parser costs that process only. No shell; the child
 * gets its own execArgv (not the parent's loaders). Rejects with MediaError TIMEOUT or TOO_LARGE,
 * or ParserFailure when the library threw or the process died (the caller maps it).
 */
export function runParser<K extends keyof ParserTasks>(
  task: K,
  input: ParserTasks[K]['input'],
  opts: IsolateOptions,
): Promise<ParserTasks[K]['result']> {
  return new Promise((resolve, reject) => {
    const child = fork(CHILD_SCRIPT, [], {
      execArgv: [`--max-old-space-size=${opts.maxHeapMb}`],
      serialization: 'advanced',
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-STDERR_KEEP);
    });
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    };
    const timer = setTimeout(
      () =>
        settle(() =>
          reject(
            new MediaError(
              'TIMEOUT',
              `Reading the ${opts.label} took longer than ${describeMs(opts.timeoutMs)} and was stopped.`,
            ),
          ),
        ),
      opts.timeoutMs,
    );
    type Reply =
      | { ok: true; result: ParserTasks[K]['result'] }
      | { ok: false; error: { name: string; message: string } };
    child.on('message', (msg: Reply) =>
      settle(() => (msg.ok ? resolve(msg.result) : reject(new ParserFailure(msg.error.name, msg.error.message)))),
    );
    child.on('error', (err) => settle(() => reject(err)));
    // 'close', not 'exit': it comes after the IPC channel and stderr are drained, so a reply or an
    // out-of-memory report that raced with the exit is not lost.
    child.on('close', (code, signal) =>
      settle(() =>
        reject(
          /heap out of memory|Allocation failed/i.test(stderr)
            ? new MediaError('TOO_LARGE', `The ${opts.label} needs more memory to read than allowed.`)
            : new ParserFailure(
                'ProcessExit',
                `The ${opts.label} reader stopped unexpectedly (${signal ?? `exit code ${code}`}).`,
              ),
        ),
      ),
    );
    child.send({ task, input });
  });
}
