import type { Kysely } from 'kysely';
import type { Database } from '../../adapters/db/database.ts';
import type { DB } from '../../adapters/db/schema.ts';

interface Lifecycle {
  id: string;
  organization_id: string;
  status: string;
  reservation_id: string | null;
  updated_at: string;
  completed_at: string | null;
  failed_at: string | null;
}

/**
 * A table whose rows have the lifecycle columns: the caller names its own one-run generation
 * resource (environment_generations, prompt_enhancements, video_prompt_enhancements), declared in
 * its module's tables file, so this shared SQL knows no module's table.
 */
export type RunTable = { [K in keyof DB]: DB[K] extends Lifecycle ? K : never }[keyof DB];

/**
 * The lifecycle SQL shared by single-run generations: insert, read, and the two transitions, each
 * one conditional UPDATE so a job that runs twice cannot move a run out of a terminal state.
 */
export function createRunsRepo<T extends RunTable>(db: Database, table: T) {
  type Row = DB[T];
  // Both tables have these columns; Kysely is shown just them under one name.
  const k = db.kysely as unknown as Kysely<{ runs: Lifecycle }>;
  const t = table as unknown as 'runs';
  return {
    async insert(row: Row): Promise<void> {
      await k
        .insertInto(t)
        .values(row as unknown as Lifecycle)
        .execute();
    },
    async delete(id: string): Promise<void> {
      await k.deleteFrom(t).where('id', '=', id).execute();
    },
    async byId(id: string): Promise<Row | undefined> {
      return (await k.selectFrom(t).selectAll().where('id', '=', id).executeTakeFirst()) as Row | undefined;
    },
    /** A run of the organization (ids compared in lower case). */
    async find(orgId: string, id: string): Promise<Row | undefined> {
      return (await k
        .selectFrom(t)
        .selectAll()
        .where('organization_id', '=', orgId)
        .where('id', '=', id.toLowerCase())
        .executeTakeFirst()) as Row | undefined;
    },
    /** pending → processing; false when the run is already terminal (or gone). */
    async start(id: string, at: string): Promise<boolean> {
      await k
        .updateTable(t)
        .set({ status: 'processing', updated_at: at })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .execute();
      const row = (await this.byId(id)) as { status: string } | undefined;
      return row?.status === 'processing';
    },
    /** Makes the run terminal once; true when this call did. */
    async finish(id: string, status: 'completed' | 'failed', fields: Partial<Row>, at: string): Promise<boolean> {
      const r = await k
        .updateTable(t)
        .set({
          ...fields,
          status,
          updated_at: at,
          completed_at: status === 'completed' ? at : null,
          failed_at: status === 'failed' ? at : null,
        } as Partial<Lifecycle>)
        .where('id', '=', id)
        .where('status', 'not in', ['completed', 'failed'])
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
  };
}

export type RunsRepo<T extends RunTable> = ReturnType<typeof createRunsRepo<T>>;
