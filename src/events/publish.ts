import type { Clock } from '../clock.ts';
import type { Changes, ResourceKind } from './changes.ts';

/** What a module needs to announce its changes (`deps.changes`, or a test double). */
export type ChangePublisher = Pick<Changes, 'publish'>;

/** Statuses after which a resource no longer moves on its own (every module's terminal ones). */
export const TERMINAL_STATUSES: ReadonlySet<string> = new Set(['completed', 'failed', 'ready', 'complete', 'canceled']);

export const isTerminalStatus = (status: string | undefined): boolean =>
  status !== undefined && TERMINAL_STATUSES.has(status);

/** The columns every pollable row has. */
export interface ChangedRow {
  id: string;
  organization_id: string;
  brand_id?: string | null;
  status: string;
}

/**
 * Publishes the change of one resource after its transition committed: from the row (with
 * `status` overriding the row's, for a deleted row) or from a loader that reads it again (roll-ups:
 * the forge or group as it is now). Never throws: polling still works without the event, and a
 * job must not fail (or retry) because its announcement could not be made.
 */
export async function publishChange(
  deps: { changes: ChangePublisher; clock: Clock; log?: { warn(obj: object, msg?: string): void } },
  kind: ResourceKind,
  source: ChangedRow | (() => Promise<ChangedRow | undefined>),
  status?: string,
): Promise<void> {
  try {
    const row = typeof source === 'function' ? await source() : source;
    if (!row) return;
    const s = status ?? row.status;
    await deps.changes.publish({
      kind,
      id: row.id,
      orgId: row.organization_id,
      ...(row.brand_id ? { brandId: row.brand_id } : {}),
      status: s,
      terminal: isTerminalStatus(s),
      at: deps.clock().toISOString(),
    });
  } catch (err) {
    deps.log?.warn({ err: (err as Error).message, kind }, 'could not publish a resource change');
  }
}
