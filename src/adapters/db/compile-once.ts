import { type Compilable, CompiledQuery } from 'kysely';
import type { Database } from './database.ts';

/**
 * A Kysely query built and compiled once, run many times with new parameters: building and
 * compiling costs more than running the small indexed queries of hot paths. `build` receives
 * `p(i)`, a placeholder for the i-th run parameter, and uses it wherever a value goes.
 */
export function compileOnce<R>(db: Pick<Database, 'kysely'>, build: (p: (i: number) => string) => Compilable<R>) {
  const marks = new Map<string, number>();
  const p = (i: number) => {
    const mark = `\u0000param-${i}\u0000`;
    marks.set(mark, i);
    return mark;
  };
  const compiled = build(p).compile();
  const slots = compiled.parameters.map((v) => (typeof v === 'string' && marks.has(v) ? marks.get(v)! : -1));
  if (slots.filter((s) => s >= 0).length !== marks.size)
    throw new Error('compileOnce: a placeholder was not used as a parameter');
  return {
    async run(params: unknown[]): Promise<R | undefined> {
      const values = compiled.parameters.map((v, i) => (slots[i]! >= 0 ? params[slots[i]!] : v));
      const result = await db.kysely.executeQuery<R>(CompiledQuery.raw(compiled.sql, values));
      return result.rows[0];
    },
  };
}
