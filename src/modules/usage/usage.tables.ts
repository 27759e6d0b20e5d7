/**
 * The usage ledger. `usage_counters` holds, per organization, pool and billing period, the units
 * reserved or committed; it is the row the atomic cap check updates. `usage_reservations` holds
 * each reservation so that commit and release are idempotent and a release gives back exactly the
 * reserved amount, to the period it was taken from.
 */
export interface UsageCountersTable {
  organization_id: string;
  pool: string;
  /** ISO start of the billing period (first instant of the calendar month, UTC). */
  period_start: string;
  /** Units reserved + committed in the period. */
  used: number;
  updated_at: string;
}

export type ReservationState = 'reserved' | 'committed' | 'released';

export interface UsageReservationsTable {
  id: string;
  organization_id: string;
  pool: string;
  period_start: string;
  amount: number;
  state: ReservationState;
  /** What the units were reserved for (a job or resource id), free text for operators. */
  reference: string | null;
  created_at: string;
  updated_at: string;
}

/** This module's tables, added to the database type (declaration merging; see schema.ts). */
declare module '../../adapters/db/schema.ts' {
  interface DB {
    usage_counters: UsageCountersTable;
    usage_reservations: UsageReservationsTable;
  }
}
