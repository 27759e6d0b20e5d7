import { ConfigError, loadConfig } from './config.ts';
import { createDeps } from './deps.ts';
import { ADMIN_USAGE, runAdmin } from './cli/admin.ts';
import { UsageError } from './cli/args.ts';
import { serve } from './cli/serve.ts';
import { AccessError } from './modules/access/access.service.ts';

const USAGE = `Usage: atelier <command>
  serve [--no-workers]   run the API (default port 8080)
  worker                 run job workers only (scaled mode)
  migrate                apply database migrations and exit
  admin …                manage organizations, users and API keys

${ADMIN_USAGE}`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (!command || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return command ? 0 : 2;
  }
  const config = loadConfig();
  switch (command) {
    case 'serve':
      await serve(config, { workers: !rest.includes('--no-workers') });
      return -1; // keep running
    case 'worker':
      process.stdout.write('No job queues are defined yet; the worker has nothing to run.\n');
      return 0;
    case 'migrate': {
      const deps = await createDeps(config);
      await deps.close();
      process.stdout.write('Migrations applied.\n');
      return 0;
    }
    case 'admin': {
      const deps = await createDeps({ ...config, logLevel: 'silent' });
      try {
        await runAdmin(rest, deps, (line) => process.stdout.write(`${line}\n`));
      } finally {
        await deps.close();
      }
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
    if (err instanceof ConfigError || err instanceof AccessError) {
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
