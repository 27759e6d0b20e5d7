// Refuses to go on under a Node.js older than the one Atelier supports, with one line that says
// what runs, what is needed and how to fix it. Plain JavaScript with no imports but node:*, so it
// runs before anything native loads (better-sqlite3 crashes under Node.js 20 instead of failing).
// Run by `npm install` (preinstall), `npm start`, `npm test` and the `atelier` command.
import { pathToFileURL } from 'node:url';

// 22.18: the first 22 that runs TypeScript without flags (type stripping), as Atelier's processes do.
export const MINIMUM = '22.18.0';

/** The refusal for `versions` (process.versions), or undefined when the version is supported. */
export function nodeProblem(versions = process.versions, minimum = MINIMUM) {
  const have = String(versions.node ?? '0.0.0').split('.').map(Number);
  const need = minimum.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    if ((have[i] ?? 0) > need[i]) return undefined;
    if ((have[i] ?? 0) < need[i]) {
      return (
        `Atelier needs Node.js ${minimum} or newer (24 LTS recommended); this is Node.js ${versions.node}. ` +
        'Install Node.js 24 (https://nodejs.org, or your version manager: nvm install 24), ' +
        'or run through the repository\'s launcher: scripts/node 24 npm start'
      );
    }
  }
  return undefined;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const problem = nodeProblem();
  if (problem) {
    process.stderr.write(`atelier: ${problem}\n`);
    process.exit(1);
  }
}
