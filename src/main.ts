import module from 'node:module';

// V8's compiled code for our modules and their dependencies is kept on disk (the OS's temp folder;
// NODE_COMPILE_CACHE picks another, NODE_DISABLE_COMPILE_CACHE=1 turns it off), so a start after
// the first compiles little: about half the CPU of loading the server (2.4 s → 1.1 s measured),
// and the CLI's commands answer sooner. The modules are imported only after it is on.
module.enableCompileCache?.();
const { runCli } = await import('./cli/run.ts');

// The process's entry: the command's exit code once it answered (serve and worker keep running).
runCli(process.argv.slice(2)).then((code) => {
  if (code >= 0) process.exitCode = code;
});
