import type { Database } from '../../adapters/db/database.ts';
import type { WebhookDeliveriesTable, WebhookEndpointsTable } from './webhooks.tables.ts';

export type EndpointRow = WebhookEndpointsTable;
export type DeliveryRow = WebhookDeliveriesTable;

/** SQL of webhook endpoints and deliveries (both dialects). */
export function createWebhooksRepo(db: Database) {
  const k = db.kysely;
  return {
    async insertEndpoint(row: EndpointRow): Promise<void> {
      await k.insertInto('webhook_endpoints').values(row).execute();
    },
    getEndpoint: (id: string) => k.selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirst(),
    listEndpoints: (orgId: string) =>
      k
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('organization_id', '=', orgId)
        .orderBy('created_at')
        .orderBy('id')
        .execute(),
    /** The org's enabled endpoints: what the sink reads on every terminal change. */
    enabledEndpoints: (orgId: string) =>
      k
        .selectFrom('webhook_endpoints')
        .select(['id', 'event_types'])
        .where('organization_id', '=', orgId)
        .where('enabled', '=', 1)
        .execute(),
    async setEnabled(id: string, enabled: boolean, now: string): Promise<boolean> {
      const r = await k
        .updateTable('webhook_endpoints')
        .set({ enabled: enabled ? 1 : 0, updated_at: now })
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    /** Removes the endpoint and (cascade) its delivery log. */
    async deleteEndpoint(id: string): Promise<boolean> {
      await k.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).execute();
      const r = await k.deleteFrom('webhook_endpoints').where('id', '=', id).executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

    /** Inserts the delivery unless one with its id exists; true when this call inserted it. */
    async insertDelivery(row: DeliveryRow): Promise<boolean> {
      const r = await k
        .insertInto('webhook_deliveries')
        .values(row)
        .onConflict((oc) => oc.column('id').doNothing())
        .executeTakeFirst();
      return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    getDelivery: (id: string) => k.selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst(),
    /**
     * Records attempt `attempt`'s outcome, only if the row is still pending at `attempt - 1`
     * attempts (a duplicate run of the same attempt changes nothing); true when it did.
     */
    async recordAttempt(
      id: string,
      attempt: number,
      set: Pick<DeliveryRow, 'status' | 'next_attempt_at' | 'last_status_code' | 'last_error' | 'delivered_at'>,
    ): Promise<boolean> {
      const r = await k
        .updateTable('webhook_deliveries')
        .set({ ...set, attempts: attempt })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .where('attempts', '=', attempt - 1)
        .executeTakeFirst();
      return Number(r.numUpdatedRows) > 0;
    },
    /** Ends a pending delivery as failed without an attempt (its endpoint was disabled). */
    async abandon(id: string, error: string): Promise<void> {
      await k
        .updateTable('webhook_deliveries')
        .set({ status: 'failed', next_attempt_at: null, last_error: error })
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .execute();
    },
    /** The newest deliveries of an endpoint (the log, newest first). */
    recentDeliveries: (endpointId: string, limit: number) =>
      k
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('endpoint_id', '=', endpointId)
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(limit)
        .execute(),
  };
}

export type WebhooksRepo = ReturnType<typeof createWebhooksRepo>;
