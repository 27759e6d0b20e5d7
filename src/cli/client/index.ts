import { AtelierError } from '../../../sdk/src/index.ts';
import { UsageError } from '../args.ts';
import type { ClientCommand } from './commands.ts';
import { ClientConfigError } from './config.ts';
import { Ctx, HelpRequested, ResourceFailed } from './context.ts';
import { type Io, processIo } from './output.ts';

interface CommandModule {
  USAGE: string;
  run(action: string | undefined, argv: string[], ctx: Ctx): Promise<void>;
}

/**
 * `atelier brands|assets|extract|dna|scenes|environments|enhance|videos|usage …`: the API client
 * commands, on the SDK. They load none of the server's modules and need only ATELIER_URL and
 * ATELIER_API_KEY (or a profile), never DATABASE_URL and the like.
 */
const GROUPS: Record<ClientCommand, () => Promise<CommandModule>> = {
  brands: () => import('./brands.ts'),
  assets: () => import('./assets.ts'),
  extract: () => import('./extract.ts'),
  dna: () => import('./dna.ts'),
  scenes: () => import('./scenes.ts'),
  environments: () => import('./environments.ts'),
  enhance: () => import('./enhance.ts'),
  videos: () => import('./videos.ts'),
  usage: () => import('./usage.ts'),
};

const FILE_ERRORS = new Set(['ENOENT', 'EACCES', 'EISDIR', 'ENOTDIR', 'EPERM', 'EEXIST', 'ENOSPC', 'EROFS']);

/**
 * Runs one client command; returns the exit code. API errors, configuration errors and failed
 * resources print `atelier: …` and give 1; usage errors are thrown (the caller answers 2).
 */
export async function runClient(command: ClientCommand, argv: string[], io: Io = processIo(), env = process.env) {
  const mod = await GROUPS[command]();
  const [action, ...rest] = argv;
  const ctx = new Ctx(io, env);
  try {
    if (action === '--help' || action === '-h' || action === 'help') throw new HelpRequested(mod.USAGE);
    await mod.run(action, rest, ctx);
    return 0;
  } catch (err) {
    if (err instanceof HelpRequested) {
      io.out(err.usage);
      return 0;
    }
    if (err instanceof UsageError) throw new UsageError(err.message);
    if (err instanceof AtelierError || err instanceof ClientConfigError || err instanceof ResourceFailed) {
      io.err(`atelier: ${err instanceof AtelierError ? err.toString() : err.message}\n`);
      return 1;
    }
    // A file that cannot be read or written: say which, without a stack trace.
    const code = (err as NodeJS.ErrnoException | undefined)?.code;
    if (code && FILE_ERRORS.has(code)) {
      io.err(`atelier: ${(err as Error).message}\n`);
      return 1;
    }
    throw err;
  }
}
