/**
 * Migrations 0013, 0015. An organization's endpoints (`atelier admin webhook add`, or its admins
 * through `/v1/webhook-endpoints`).
 */
export interface WebhookEndpointsTable {
  id: string;
  organization_id: string;
  /** http(s) URL; its host is checked by the SSRF-safe fetcher at each delivery, not here. */
  url: string;
  /** `whsec_<base64 of 32 random bytes>`; kept as is (signing needs it), shown once (create, rotate). */
  secret: string;
  /** The secret before the last rotation: deliveries are signed with it too until the time below. */
  previous_secret: string | null;
  previous_secret_expires_at: string | null;
  description: string | null;
  /** JSON array of event types (`scene_forge.completed`, `video_group.*`); `[]` = every event. */
  event_types: string;
  /** 1 or 0: a disabled endpoint gets no new deliveries and its pending ones stop. */
  enabled: number;
  created_at: string;
  updated_at: string;
}

/** One event for one endpoint, and where its delivery is: the delivery log. */
export interface WebhookDeliveriesTable {
  /** The `webhook-id` header: the same on every attempt, so receivers can drop duplicates. */
  id: string;
  endpoint_id: string;
  organization_id: string;
  event_type: string;
  /** The exact JSON body sent (and signed) on every attempt. */
  payload: string;
  /** pending → delivered | failed. */
  status: string;
  /** Attempts made so far. */
  attempts: number;
  /** When the next attempt is due (pending only). */
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
}

/** This module's tables, added to the database type (declaration merging; see schema.ts). */
declare module '../../adapters/db/schema.ts' {
  interface DB {
    webhook_endpoints: WebhookEndpointsTable;
    webhook_deliveries: WebhookDeliveriesTable;
  }
}
