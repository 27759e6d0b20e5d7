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
    /** The org's endpoints, one page, by creation time (newest first when `newestFirst`). */
    pageEndpoints: (orgId: string, o: { offset: number; limit: number; newestFirst: boolean }) =>
      k
        .selectFrom('webhook_endpoints')
        .selectAll()
        .where('organization_id', '=', orgId)
        .orderBy('created_at', o.newestFirst ? 'desc' : 'asc')
        .orderBy('id', o.newestFirst ? 'desc' : 'asc')
        .limit(o.limit)
        .offset(o.offset)
        .execute(),
    async countEndpoints(orgId: string): Promise<number> {
      const r = await k
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('organization_id', '=', orgId)
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
    async updateEndpoint(
      id: string,
      set: Partial<Pick<EndpointRow, 'url' | 'event_types' | 'description' | 'enabled'>> & { updated_at: string },
    ): Promise<void> {
      await k.updateTable('webhook_endpoints').set(set).where('id', '=', id).execute();
    },
    /**
     * Makes `secret` the endpoint's secret; the one it replaces is kept as the previous secret
     * until `previousUntil` (null: dropped at once). One statement: two rotations at once cannot
     * both keep the same previous secret.
     */
    async rotateSecret(id: string, secret: string, previousUntil: string | null, now: string): Promise<boolean> {
      const r = await k
        .updateTable('webhook_endpoints')
        .set((eb) => ({
          previous_secret: previousUntil === null ? null : eb.ref('secret'),
          previous_secret_expires_at: previousUntil,
          secret,
          updated_at: now,
        }))
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
    /** The newest deliveries of an endpoint (the log, newest first), optionally of one status. */
    deliveries: (endpointId: string, o: { limit: number; offset?: number; status?: string }) =>
      k
        .selectFrom('webhook_deliveries')
        .selectAll()
        .where('endpoint_id', '=', endpointId)
        .$if(o.status !== undefined, (q) => q.where('status', '=', o.status as string))
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(o.limit)
        .offset(o.offset ?? 0)
        .execute(),
    async countDeliveries(endpointId: string, status?: string): Promise<number> {
      const r = await k
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('endpoint_id', '=', endpointId)
        .$if(status !== undefined, (q) => q.where('status', '=', status as string))
        .executeTakeFirstOrThrow();
      return Number(r.n);
    },
  };
}

export type WebhooksRepo = ReturnType<typeof createWebhooksRepo>;
