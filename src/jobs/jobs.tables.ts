/** Tables of the in-process job driver (local.driver.ts); unused in the BullMQ mode. */
export interface JobsTable {
  /** The caller's `jobId` (dedupe key) or a generated UUID; unique, so a second enqueue is a no-op. */
  id: string;
  name: string;
  queue: string;
  /** JSON text of the validated payload. */
  payload: string;
  status: 'queued' | 'running' | 'completed' | 'failed';
  /** Attempts started (claims), including one whose worker died. */
  attempts: number;
  max_attempts: number;
  /** ISO time from which the job may be claimed. */
  run_at: string;
  /** Worker instance holding the job while `running`. */
  locked_by: string | null;
  /** Lease end; a `running` job past it belongs to a dead worker and is claimed again. */
  locked_until: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  finished_at: string | null;
}

/** This module's tables, added to the database type (declaration merging; see schema.ts). */
declare module '../adapters/db/schema.ts' {
  interface DB {
    jobs: JobsTable;
  }
}
