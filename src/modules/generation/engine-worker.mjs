// The engine worker thread's entry (src/adapters/workers/thread-pool.ts): plain JavaScript that
// registers tsx, then hands each task to ./engine-tasks.ts.
import { register } from 'tsx/esm/api';

register();
const tasks = import('./engine-tasks.ts');

export default async function run({ task, payload }) {
  return (await tasks).runTask(task, payload);
}
