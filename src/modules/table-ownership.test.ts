import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * A module owns its tables (ARCHITECTURE.md): its `<feature>.tables.ts` registers them in the
 * database type, and no other module's code queries them; another module's data is read through
 * the owner's repo or service. Biome already refuses an import of another module's tables file;
 * this test refuses the queries, which need no import (every table is in `DB`).
 *
 * It reads the modules' source (tests, test harnesses and fakes excepted), comments left out, and
 * reports, as file:line:
 * - a query builder call naming another module's table (`selectFrom`, `updateTable`,
 *   `deleteFrom`, `insertInto`, the joins; `'assets as a'` counts as `assets`);
 * - raw SQL (`sql` templates) reading or writing another module's table;
 * - a query on a table chosen at run time (`selectFrom(table)`) in a file that names another
 *   module's table (a string or an object key): a loop over other modules' tables. The shared
 *   generation lifecycle queries tables its callers pass in and names none, so it passes.
 */

const MODULES = import.meta.dirname;
const QUERY =
  'selectFrom|updateTable|deleteFrom|insertInto|replaceInto|mergeInto|innerJoin|leftJoin|rightJoin|fullJoin';
const NAMED = new RegExp(`\\.(?:${QUERY})\\(\\s*(['"\`])([^'"\`]+)\\1`, 'g');
const LISTED = new RegExp(`\\.(?:${QUERY})\\(\\s*\\[([^\\]]*)\\]`, 'g');
const CHOSEN = new RegExp(`\\.(?:${QUERY})\\(\\s*(?!['"\`\\[\\s])`, 'g');
const RAW_SQL = /\bsql(?:<[^>`]*>)?`([^`]*)`/g;
const RAW_TABLE = /\b(?:from|join|into|update)\s+"?(\w+)/gi;

/** The source without its comments (same length, same lines), strings and regexes kept. */
function stripComments(src: string): string {
  const out = src.split('');
  const blank = (from: number, to: number) => {
    for (let j = from; j < to; j++) if (out[j] !== '\n') out[j] = ' ';
  };
  // Code nested in template literals: a stack of brace depths, one per open `${`.
  const templates: number[] = [];
  let depth = 0;
  let i = 0;
  const n = src.length;
  let last = ''; // the last significant character of code, to tell a regex from a division
  const skipString = (q: string) => {
    i++;
    while (i < n && src[i] !== q) i += src[i] === '\\' ? 2 : 1;
    i++;
  };
  // Reads template text from i (just after ` or }) to its end or to the next `${`.
  const skipTemplate = () => {
    while (i < n) {
      if (src[i] === '\\') i += 2;
      else if (src[i] === '`') {
        i++;
        return;
      } else if (src[i] === '$' && src[i + 1] === '{') {
        i += 2;
        templates.push(depth);
        depth++;
        return;
      } else i++;
    }
  };
  while (i < n) {
    const c = src[i]!;
    const d = src[i + 1];
    if (c === '/' && d === '/') {
      const end = src.indexOf('\n', i);
      blank(i, end === -1 ? n : end);
      i = end === -1 ? n : end;
    } else if (c === '/' && d === '*') {
      const end = src.indexOf('*/', i + 2);
      blank(i, end === -1 ? n : end + 2);
      i = end === -1 ? n : end + 2;
    } else if (c === "'" || c === '"') {
      skipString(c);
      last = c;
    } else if (c === '`') {
      i++;
      skipTemplate();
      last = '`';
    } else if (
      c === '/' &&
      (last === '' ||
        '(,=:[!&|?{};+-*%<>~^'.includes(last) ||
        /\b(return|typeof)$/.test(src.slice(Math.max(0, i - 8), i).trimEnd()))
    ) {
      // A regex literal: to the closing slash outside a character class.
      let inClass = false;
      i++;
      while (i < n && src[i] !== '\n') {
        if (src[i] === '\\') i++;
        else if (src[i] === '[') inClass = true;
        else if (src[i] === ']') inClass = false;
        else if (src[i] === '/' && !inClass) break;
        i++;
      }
      i++;
      last = '/';
    } else if (c === '{') {
      depth++;
      last = c;
      i++;
    } else if (c === '}') {
      depth--;
      i++;
      if (templates.length && templates[templates.length - 1] === depth) {
        templates.pop();
        skipTemplate();
        last = '`';
      } else last = c;
    } else {
      if (!/\s/.test(c)) last = c;
      i++;
    }
  }
  return out.join('');
}

/** Which module owns each table: the `interface DB` its `*.tables.ts` adds to the database type. */
function tableOwners(): Map<string, string> {
  const owners = new Map<string, string>();
  for (const mod of fs.readdirSync(MODULES)) {
    const dir = path.join(MODULES, mod);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const file of fs.readdirSync(dir).filter((f) => f.endsWith('.tables.ts'))) {
      const src = stripComments(fs.readFileSync(path.join(dir, file), 'utf8'));
      const db = src.match(/interface DB \{([^}]*)\}/);
      if (!db) continue;
      for (const [, table] of db[1]!.matchAll(/(\w+)\??\s*:/g)) {
        const before = owners.get(table!);
        if (before && before !== mod) throw new Error(`table ${table} is registered by ${before} and ${mod}`);
        owners.set(table!, mod);
      }
    }
  }
  return owners;
}

const lineOf = (src: string, index: number) => src.slice(0, index).split('\n').length;

/** The queries of `src` (module `mod`'s code) that touch another module's table, as `line table (owner)`. */
function foreignQueries(src: string, mod: string, owners: Map<string, string>): string[] {
  const code = stripComments(src);
  const found: string[] = [];
  const seen = new Set<string>();
  const check = (table: string, index: number, how = '') => {
    const owner = owners.get(table);
    const at = `${lineOf(code, index)} ${table}`;
    if (owner && owner !== mod && !seen.has(at)) {
      seen.add(at);
      found.push(`${at} (${owner})${how}`);
    }
  };
  for (const m of code.matchAll(NAMED)) check(m[2]!.trim().split(/\s+/)[0]!, m.index);
  for (const m of code.matchAll(LISTED))
    for (const s of m[1]!.matchAll(/['"`]([^'"`]+)['"`]/g)) check(s[1]!.trim().split(/\s+/)[0]!, m.index);
  for (const m of code.matchAll(RAW_SQL)) {
    const body = m.index + m[0].indexOf('`') + 1;
    for (const t of m[1]!.matchAll(RAW_TABLE)) check(t[1]!, body + t.index);
  }
  if ([...code.matchAll(CHOSEN)].length > 0) {
    // Tables named as strings or object keys, next to a query whose table is a variable.
    for (const m of code.matchAll(/(['"])(\w+)\1|(?:^|[{,])\s*(\w+)\s*:/gm)) {
      const name = m[2] ?? m[3]!;
      check(name, m.index + m[0].indexOf(name), ', with a query on a table chosen at run time');
    }
  }
  return found;
}

function moduleSources(): { file: string; mod: string }[] {
  const out: { file: string; mod: string }[] = [];
  const walk = (dir: string, mod: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (e.name !== 'fakes') walk(p, mod);
      } else if (/\.(ts|mts|js|mjs)$/.test(e.name) && !/\.test(-harness)?\.ts$/.test(e.name)) {
        out.push({ file: p, mod });
      }
    }
  };
  for (const e of fs.readdirSync(MODULES, { withFileTypes: true }))
    if (e.isDirectory()) walk(path.join(MODULES, e.name), e.name);
  return out;
}

describe('table ownership', () => {
  const owners = tableOwners();

  it('knows every module table', () => {
    expect(owners.get('brands')).toBe('brands');
    expect(owners.get('organizations')).toBe('access');
    expect(owners.get('prompt_enhancements')).toBe('enhancements');
    // One owner per tables file: a file whose tables were not read would be missing here.
    const tablesFiles = fs
      .readdirSync(MODULES, { withFileTypes: true })
      .filter(
        (e) => e.isDirectory() && fs.readdirSync(path.join(MODULES, e.name)).some((f) => f.endsWith('.tables.ts')),
      );
    expect(new Set(owners.values()).size).toBe(tablesFiles.length);
  });

  it('finds the queries it is meant to find', () => {
    const sample = [
      "await k.selectFrom('brands as b').select('id').execute(); // selectFrom('assets')",
      "/* k.deleteFrom('organizations') */ await sql`SELECT count(*) FROM extractions`.execute(k);",
      'const RUNNING = { scene_forges: 1, assets: 1 };',
      'for (const t of Object.keys(RUNNING)) await k.selectFrom(t).selectAll().execute();',
      "const re = /['/]/; k.innerJoin('users as u', 'u.id', 'x.user_id');",
    ].join('\n');
    expect(foreignQueries(sample, 'assets', owners)).toEqual([
      '1 brands (brands)',
      '5 users (access)',
      '2 extractions (extraction)',
      '3 scene_forges (scenes), with a query on a table chosen at run time',
    ]);
    expect(foreignQueries(sample, 'assets', owners).join()).not.toMatch(/organizations/);
  });

  it('no module queries a table another module owns (read it through the owner’s repo or service)', () => {
    const found: string[] = [];
    for (const { file, mod } of moduleSources()) {
      for (const hit of foreignQueries(fs.readFileSync(file, 'utf8'), mod, owners)) {
        const [line, ...rest] = hit.split(' ');
        found.push(`${path.relative(process.cwd(), file)}:${line} ${rest.join(' ')}`);
      }
    }
    expect(found).toEqual([]);
  });
});
