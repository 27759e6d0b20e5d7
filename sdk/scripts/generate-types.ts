/**
 * Regenerates sdk/src/openapi-types.ts from the API's OpenAPI document.
 *
 *   npm run sdk:types                          # builds the app in-process and reads its document
 *   npm run sdk:types -- --url http://host:8080   # or reads a running server's /v1/openapi.json
 *   npm run sdk:types -- --check               # exit 1 when the checked-in file is stale
 *
 * sdk/test/openapi-types.test.ts runs the same comparison in CI.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { generateTypes } from './codegen.ts';
import { fetchDocument, servedDocument } from './served-document.ts';

export const TYPES_FILE = path.resolve(import.meta.dirname, '../src/openapi-types.ts');

const { values } = parseArgs({ options: { url: { type: 'string' }, check: { type: 'boolean' } } });
const document = values.url ? await fetchDocument(values.url) : await servedDocument();
const text = generateTypes(document);
if (values.check) {
  const current = fs.existsSync(TYPES_FILE) ? fs.readFileSync(TYPES_FILE, 'utf8') : '';
  if (current !== text) {
    process.stderr.write(`${path.relative(process.cwd(), TYPES_FILE)} is stale: run npm run sdk:types\n`);
    process.exit(1);
  }
  process.stdout.write('openapi-types.ts is up to date\n');
} else {
  fs.writeFileSync(TYPES_FILE, text);
  process.stdout.write(`wrote ${path.relative(process.cwd(), TYPES_FILE)} (${text.length} bytes)\n`);
}
