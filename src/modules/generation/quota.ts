import type { UsageLedger } from '../usage/usage.ledger.ts';
import type { Pool } from '../usage/plans.ts';

/**
 * `amount` units of `pool` (default one) per reference (a variation, a run), each its own
 * reservation so each can be committed or released on its own. All or nothing: when one is refused (403 QUOTA_EXCEEDED) the
 * ones already taken are given back before the error goes on.
 */
export async function reserveUnits(
  usage: Pick<UsageLedger, 'reserve' | 'release'>,
  orgId: string,
  pool: Pool,
  references: string[],
  amount = 1,
): Promise<string[]> {
  const taken: string[] = [];
  try {
    for (const reference of references) taken.push(await usage.reserve(orgId, pool, amount, { reference }));
    return taken;
  } catch (err) {
    for (const id of taken) await usage.release(id).catch(() => undefined);
    throw err;
  }
}

/**
 * Writes a generation's rows and queues its jobs (`write`); when that fails part way, removes
 * what was written (`undo`) and gives the reserved units back before the error goes on, so a
 * failed create leaves nothing behind and costs nothing.
 */
export async function writeOrRelease(
  usage: Pick<UsageLedger, 'release'>,
  reservations: readonly (string | undefined)[],
  write: () => Promise<void>,
  undo: () => Promise<void>,
): Promise<void> {
  try {
    await write();
  } catch (err) {
    await undo().catch(() => undefined);
    for (const r of reservations) if (r) await usage.release(r).catch(() => undefined);
    throw err;
  }
}
