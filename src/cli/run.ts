import { SignerSettingsError } from '../adapters/provenance/credentials.ts';
import { DatabaseUnavailable } from '../adapters/db/database-unavailable.ts';
import { isStorageError } from '../adapters/storage/storage.port.ts';
import { ConfigError, loadConfig } from '../config.ts';
import { AccessError } from '../modules/access/access.errors.ts';
import { ADMIN_USAGE, runAdmin } from './admin.ts';
import { UsageError } from './args.ts';
import { CLIENT_USAGE, isClientCommand } from './client/commands.ts';
import { type Io, processIo } from './client/output.ts';
import { databaseMismatch, databaseOf, InstallMismatch, linkBaseUrl, readServerInfo } from './server-info.ts';

/**
 * The `atelier` command: `runCli(argv)` runs one command and answers its exit code (-1: `serve` and
 * `worker` keep running). Output goes through `io`, settings come from `env`, so the tests run
 * commands in this process as well as in real ones (src/main.ts is the process's entry).
 * The server's modules (serve.ts, worker.ts; admin-deps.ts for admin) are imported on use, so
 * `--help`, bad usage and invalid settings answer at once.
 */
const USAGE = `Usage: atelier <command>
  serve [--no-workers]   run the API (default port 8080)
  worker [--queues a,b]  run job workers only, until SIGTERM (scaled mode)
  migrate                apply database migrations and exit
  admin …                manage organizations, users and API keys
  brands|assets|extract|dna|scenes|environments|enhance|videos|usage …   call a running Atelier's API

${ADMIN_USAGE}

${CLIENT_USAGE}`;

async function dispatch(argv: string[], io: Io, env: NodeJS.ProcessEnv): Promise<number> {
  const [command, ...rest] = argv;
  if (!command) throw new UsageError(`missing command\n\n${USAGE}`);
  if (command === 'help' || command === '--help' || command === '-h') {
    io.out(USAGE);
    return 0;
  }
  // The API client commands (src/cli/client) talk to a server over HTTP through the SDK: they
  // load none of the server's modules and need none of its settings.
  if (isClientCommand(command)) return (await import('./client/index.ts')).runClient(command, rest, io, env);
  const config = loadConfig(env);
  switch (command) {
    case 'serve':
      await (await import('./serve.ts')).serve(config, { workers: !rest.includes('--no-workers') });
      return -1; // keep running
    case 'worker':
      await (await import('./worker.ts')).worker(config, rest);
      return -1; // keep running until SIGTERM
    case 'migrate': {
      // The database alone: no queue, no change feed (a Redis subscription would only warn here).
      const { db } = await (await import('../core-deps.ts')).openCore(config);
      await db.close();
      io.out(`Migrations applied (${databaseOf(config)}).`);
      return 0;
    }
    case 'admin': {
      const server = readServerInfo(config);
      const database = databaseOf(config);
      const mismatch = databaseMismatch(database, server);
      if (mismatch) throw new InstallMismatch(mismatch);
      const publicUrl = linkBaseUrl(config, env, server);
      const { createAdminDeps } = await import('../admin-deps.ts');
      const deps = await createAdminDeps({ ...config, publicUrl, logLevel: 'silent' });
      try {
        await runAdmin(rest, deps, (line) => io.out(line));
      } finally {
        await deps.close();
      }
      // Which database the command used, on stderr (stdout stays the answer, JSON with --json).
      io.err(`atelier admin: database ${database}\n`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${command}"\n\n${USAGE}`);
  }
}

/** Runs one command; a refusal is one line on stderr (exit 1, or 2 for bad usage), a bug its stack. */
export async function runCli(
  argv: string[],
  io: Io = processIo(),
  env: NodeJS.ProcessEnv = process.env,
): Promise<number> {
  try {
    return await dispatch(argv, io, env);
  } catch (err) {
    if (
      err instanceof ConfigError ||
      err instanceof AccessError ||
      err instanceof InstallMismatch ||
      err instanceof DatabaseUnavailable ||
      err instanceof SignerSettingsError ||
      isStorageError(err)
    ) {
      io.err(`atelier: ${err.message}\n`);
      return 1;
    }
    if (err instanceof UsageError) {
      io.err(`atelier: ${err.message}\n`);
      return 2;
    }
    io.err(`atelier: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return 1;
  }
}
