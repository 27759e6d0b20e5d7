import { runCli } from './cli/run.ts';

// The process's entry: the command's exit code once it answered (serve and worker keep running).
runCli(process.argv.slice(2)).then((code) => {
  if (code >= 0) process.exitCode = code;
});
