// The engine worker thread's entry (src/adapters/workers/thread-pool.ts): plain JavaScript that
// hands each task to ./engine-tasks.ts (Node.js strips its types, as it does for the server's).
// Each thread loads the engines again: from the compile cache as src/main.ts turns it on (about
// half the CPU of a thread's start).
import module from 'node:module';

module.enableCompileCache?.();
const tasks = import('./engine-tasks.ts');

export default async function run({ task, payload }) {
  return (await tasks).runTask(task, payload);
}
