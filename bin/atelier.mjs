#!/usr/bin/env node
// Package bin: runs the TypeScript CLI (Node.js strips the types itself) so `npx atelier …`
// works from a checkout. The Node.js version is checked first, before anything native loads.
import { nodeProblem } from '../scripts/check-node.mjs';

const problem = nodeProblem();
if (problem) {
  process.stderr.write(`atelier: ${problem}\n`);
  process.exit(1);
}
await import('../src/main.ts');
