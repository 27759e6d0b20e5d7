/** Builds the console bundle once per test run, so tests (and the server they start) can serve console/dist. */
import { buildConsole } from '../build.ts';

export default async function setup() {
  await buildConsole();
}
