/**
 * `npm run bench`: runs every bench/*.ts script (except this one) one after another, each in its
 * own process so they do not disturb each other. Each prints its own JSON result; the run fails
 * when any script fails (a missed budget included). `npm run bench -- http` runs only the named ones.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const dir = import.meta.dirname;
const only = process.argv.slice(2);
const scripts = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.ts') && f !== 'run.ts' && !f.endsWith('.d.ts'))
  .filter((f) => only.length === 0 || only.includes(path.basename(f, '.ts')))
  .sort();

if (scripts.length === 0) {
  process.stderr.write(`no bench scripts match ${only.join(', ')}\n`);
  process.exit(2);
}
const failed: string[] = [];
for (const script of scripts) {
  process.stderr.write(`bench/${script}\n`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(dir, script)], { stdio: 'inherit' });
  if (r.status !== 0) failed.push(script);
}
if (failed.length > 0) {
  process.stderr.write(`failed: ${failed.join(', ')}\n`);
  process.exitCode = 1;
}
