/** Migration 0012. One row per (organization, Idempotency-Key). */
export interface IdempotencyKeysTable {
  organization_id: string;
  key: string;
  /** sha256 of method, path and the canonical JSON body: a reuse with another request is refused. */
  request_hash: string;
  method: string;
  path: string;
  /** in_progress while the first request runs; completed once its response is stored. */
  state: string;
  response_status: number | null;
  /** JSON object of the response headers replayed. */
  response_headers: string | null;
  response_body: string | null;
  created_at: string;
  /** An in_progress row past this is abandoned (its process died): a retry may take it over. */
  locked_until: string;
  expires_at: string;
}

/** This module's tables, added to the database type (declaration merging; see schema.ts). */
declare module '../../adapters/db/schema.ts' {
  interface DB {
    idempotency_keys: IdempotencyKeysTable;
  }
}
