/**
 * Scheduled jobs for the in-process driver. Time is cut into periods of `everyMs` counted from the
 * epoch; each period gets one job whose id names the period (`sched.<key>.<period>`), and the
 * unique job id makes every process that ticks the same schedule insert the same row, so the
 * job runs once per period however many processes run it. A period no process ticked during
 * (everything was down) is skipped, not caught up. (BullMQ uses its own job schedulers.)
 */

export interface LocalSchedule {
  key: string;
  name: string;
  payload: unknown;
  everyMs: number;
}

export const periodOf = (nowMs: number, everyMs: number): number => Math.floor(nowMs / everyMs);

export const scheduledJobId = (key: string, period: number): string => `sched.${key}.${period}`;

/** Remembers which period each schedule last enqueued in this process, to skip needless inserts. */
export function createScheduleTicker(enqueue: (s: LocalSchedule, jobId: string) => Promise<void>) {
  const schedules = new Map<string, LocalSchedule>();
  const done = new Map<string, number>();
  return {
    set(s: LocalSchedule): void {
      schedules.set(s.key, s);
      done.delete(s.key);
    },
    /** Enqueues every schedule whose current period has no job yet; returns when to tick next. */
    async tick(nowMs: number): Promise<number> {
      let next = Number.POSITIVE_INFINITY;
      for (const s of schedules.values()) {
        const period = periodOf(nowMs, s.everyMs);
        if (done.get(s.key) !== period) {
          await enqueue(s, scheduledJobId(s.key, period));
          done.set(s.key, period);
        }
        next = Math.min(next, (period + 1) * s.everyMs);
      }
      return next;
    },
  };
}
