import path from 'node:path';
import type { ParseArgsConfig } from 'node:util';
import { Atelier, type Pollable, type PollableKind, type WaitTarget } from '../../../sdk/src/index.ts';
import { parse, UsageError } from '../args.ts';
import { resolveSettings } from './config.ts';
import { type Io, progressReporter } from './output.ts';

type Options = NonNullable<ParseArgsConfig['options']>;

/** Options every client command takes. */
export const COMMON = {
  json: { type: 'boolean' },
  profile: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

/** `--wait` and `--out DIR`: the options of the commands that wait for a run and save its files. */
export const WAIT_OUT = { wait: { type: 'boolean' }, out: { type: 'string' } } as const satisfies Options;

/** What a command module gets: the parsed arguments' owner, the output, and the client on demand. */
export class Ctx {
  #client: Atelier | undefined;
  json = false;
  profile: string | undefined;

  readonly io: Io;
  readonly env: NodeJS.ProcessEnv;

  constructor(io: Io, env: NodeJS.ProcessEnv) {
    this.io = io;
    this.env = env;
  }

  /** The SDK client, configured on first use (so usage errors never need a server). */
  get atelier(): Atelier {
    if (!this.#client) {
      const s = resolveSettings(this.env, this.profile);
      this.#client = new Atelier({ baseUrl: s.url, apiKey: s.apiKey });
    }
    return this.#client;
  }

  /**
   * A path the user typed, absolute: relative to the directory they ran the command from. `npm
   * run atelier -- …` runs in the package's folder but says where it was started (INIT_CWD).
   */
  userPath(p: string): string {
    return path.resolve(this.env.INIT_CWD ?? process.cwd(), p);
  }

  /**
   * node:util parseArgs (strict) with the common options; records --json and --profile, and
   * resolves `--out` against the user's directory (userPath).
   */
  parse<T extends Options>(argv: string[], options: T, usage: string) {
    const r = parse(argv, { ...COMMON, ...options });
    const v = r.values as Record<string, unknown>;
    if (v.help) throw new HelpRequested(usage);
    this.json = Boolean(v.json);
    this.profile = v.profile as string | undefined;
    if (typeof v.out === 'string') v.out = this.userPath(v.out);
    return r;
  }

  /** Prints the resource as JSON (--json) or the human text. */
  print(value: unknown, human: () => string): void {
    this.io.out(this.json ? JSON.stringify(value) : human());
  }

  /** Prints a run (print), then ends the command with ResourceFailed (exit 1) if the run failed. */
  printRun<T extends { status: string }>(run: T, human: (run: T) => string, failure: string): void {
    this.print(run, () => human(run));
    if (run.status === 'failed') throw new ResourceFailed(failure);
  }

  /** waitFor with a progress bar (TTY) or plain lines on stderr. */
  async wait<K extends PollableKind>(
    kind: K,
    target: WaitTarget<K>,
    label: string,
    o: { brandId?: string; timeoutMs?: number } = {},
  ): Promise<Pollable[K]> {
    const progress = progressReporter(this.io, label);
    try {
      return await this.atelier.waitFor(kind, target, { ...o, onProgress: progress });
    } finally {
      progress.done();
    }
  }
}

/** A waited-for resource ended `failed` (exit 1, after the result was printed). */
export class ResourceFailed extends Error {}

/** `--help` on a command: print its usage, exit 0. */
export class HelpRequested extends Error {
  readonly usage: string;

  constructor(usage: string) {
    super(usage);
    this.usage = usage;
  }
}

export function need(value: string | undefined, flag: string): string {
  if (value === undefined || value === '') throw new UsageError(`missing ${flag}`);
  return value;
}

export function int(value: string | undefined, flag: string): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`${flag}: expected a whole number, got "${value}"`);
  return n;
}

/** `a,b,c` (and repeated flags) → list. */
export function list(values: string | string[] | undefined): string[] | undefined {
  if (values === undefined) return undefined;
  return [values]
    .flat()
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

/** Throws the usage error for an unknown action of a group. */
export function unknownAction(group: string, action: string | undefined, usage: string): never {
  throw new UsageError(`${action ? `unknown ${group} command "${action}"` : `missing ${group} command`}\n\n${usage}`);
}
