import { ConfigError, loadConfig } from './config.ts';
import { ADMIN_USAGE, runAdmin } from './cli/admin.ts';
import { UsageError } from './cli/args.ts';
import { databaseMismatch, databaseOf, InstallMismatch, linkBaseUrl, readServerInfo } from './cli/server-info.ts';
import { CLIENT_USAGE, isClientCommand } from './cli/client/commands.ts';
import { AccessError } from './modules/access/access.errors.ts';
import { isStorageError } from './adapters/storage/storage.port.ts';
import { DatabaseUnavailable } from './adapters/db/database-unavailable.ts';

// The server's modules (cli/serve.ts, cli/worker.ts; admin-deps.ts for admin) are imported on use,
// so `--help`, bad usage and invalid settings answer at once.

const USAGE = `Usage: atelier <command>
  serve [--no-workers]   run the API (default port 8080)
  worker [--queues a,b]  run job workers only, until SIGTERM (scaled mode)
  migrate                apply database migrations and exit
  admin …                manage organizations, users and API keys
  brands|assets|extract|dna|scenes|environments|enhance|videos|usage …   call a running Atelier's API

${ADMIN_USAGE}

${CLIENT_USAGE}`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command) throw new UsageError(`missing command\n\n${USAGE}`);
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  // The API client commands (src/cli/client) talk to a server over HTTP through the SDK: they
  // load none of the server's modules and need none of its settings.
  if (isClientCommand(command)) return (await import('./cli/client/index.ts')).runClient(command, rest);
  const config = loadConfig();
  switch (command) {
    case 'serve':
      await (await import('./cli/serve.ts')).serve(config, { workers: !rest.includes('--no-workers') });
      return -1; // keep running
    case 'worker':
      await (await import('./cli/worker.ts')).worker(config, rest);
      return -1; // keep running until SIGTERM
    case 'migrate': {
      // The database alone: no queue, no change feed (a Redis subscription would only warn here).
      const { db } = await (await import('./core-deps.ts')).openCore(config);
      await db.close();
      process.stdout.write(`Migrations applied (${databaseOf(config)}).\n`);
      return 0;
    }
    case 'admin': {
      const server = readServerInfo(config);
      const database = databaseOf(config);
      const mismatch = databaseMismatch(database, server);
      if (mismatch) throw new InstallMismatch(mismatch);
      const publicUrl = linkBaseUrl(config, process.env, server);
      const { createAdminDeps } = await import('./admin-deps.ts');
      const deps = await createAdminDeps({ ...config, publicUrl, logLevel: 'silent' });
      try {
        await runAdmin(rest, deps, (line) => process.stdout.write(`${line}\n`));
      } finally {
        await deps.close();
      }
      // Which database the command used, on stderr (stdout stays the answer, JSON with --json).
      process.stderr.write(`atelier admin: database ${database}\n`);
      return 0;
    }
    default:
      throw new UsageError(`unknown command "${command}"\n\n${USAGE}`);
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    if (
      err instanceof ConfigError ||
      err instanceof AccessError ||
      err instanceof InstallMismatch ||
      err instanceof DatabaseUnavailable ||
      isStorageError(err)
    ) {
      process.stderr.write(`atelier: ${err.message}\n`);
      process.exitCode = 1;
    } else if (err instanceof UsageError) {
      process.stderr.write(`atelier: ${err.message}\n`);
      process.exitCode = 2;
    } else {
      process.stderr.write(`atelier: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
      process.exitCode = 1;
    }
  },
);
