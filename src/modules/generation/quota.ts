import type { UsageLedger } from '../usage/usage.ledger.ts';
import type { Pool } from '../usage/plans.ts';

/**
 * One unit of `pool` per reference (a variation, a run), each its own reservation so each can be
 * committed or released on its own. All or nothing: when one is refused (403 QUOTA_EXCEEDED) the
 * ones already taken are given back before the error goes on.
 */
export async function reserveUnits(
  usage: Pick<UsageLedger, 'reserve' | 'release'>,
  orgId: string,
  pool: Pool,
  references: string[],
): Promise<string[]> {
  const taken: string[] = [];
  try {
    for (const reference of references) taken.push(await usage.reserve(orgId, pool, 1, { reference }));
    return taken;
  } catch (err) {
    for (const id of taken) await usage.release(id).catch(() => undefined);
    throw err;
  }
}
