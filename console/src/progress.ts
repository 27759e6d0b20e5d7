/** Progress of a generation as people read it, and an estimate from recent runs (pure, unit-tested). */

export interface Stage {
  stage: 'queued' | 'generating' | 'scoring' | 'refining' | 'done' | 'failed';
  /** `Waiting for a worker`, `Generating: 2 of 4 ready`, … */
  label: string;
  ready: number;
  total: number;
}

type Part = { status: string; critiqueStatus?: string | undefined };
const finished = (s: string) => s === 'completed' || s === 'failed';
const critiquing = (p: Part) => p.critiqueStatus === 'pending' || p.critiqueStatus === 'processing';

/** Where a forge (or video group) is, from its status and its parts' statuses (what the long-poll answers). */
export function stageOf(
  g: { status: string; refinedVariations?: { status: string }[] },
  parts: Part[],
  noun = 'variations',
): Stage {
  const total = parts.length;
  const ready = parts.filter((p) => finished(p.status)).length;
  if (g.status === 'failed') return { stage: 'failed', label: 'Failed', ready, total };
  if (g.status === 'pending' && ready === 0 && !parts.some((p) => p.status === 'processing')) {
    return { stage: 'queued', label: 'Waiting for a worker', ready, total };
  }
  if (g.status === 'pending' || g.status === 'processing') {
    return { stage: 'generating', label: `Generating: ${ready} of ${total} ${noun} ready`, ready, total };
  }
  if (g.refinedVariations?.some((r) => !finished(r.status))) {
    return { stage: 'refining', label: 'Refining a variation', ready, total };
  }
  if (parts.some(critiquing)) return { stage: 'scoring', label: 'Writing the critique', ready, total };
  return { stage: 'done', label: 'Done', ready, total };
}

/** How long recent finished runs took (ms), newest first, at most `n`. */
export function recentDurations(
  runs: { status: string; createdAt: string; completedAt?: string | undefined }[],
  n = 5,
): number[] {
  return runs
    .filter((r) => r.status === 'completed' && r.completedAt)
    .sort((a, b) => (b.completedAt ?? '').localeCompare(a.completedAt ?? ''))
    .map((r) => Date.parse(r.completedAt!) - Date.parse(r.createdAt))
    .filter((ms) => Number.isFinite(ms) && ms >= 0)
    .slice(0, n);
}

/** Seconds left: the median of recent durations less the time spent; undefined without history. */
export function remainingSeconds(durationsMs: number[], elapsedMs: number): number | undefined {
  if (durationsMs.length === 0) return undefined;
  const sorted = [...durationsMs].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
  return Math.max(0, Math.ceil((median - elapsedMs) / 1000));
}

/** `about 20 s left`, `about 2 min left`, `almost done`; empty without an estimate. */
export function etaText(seconds: number | undefined): string {
  if (seconds === undefined) return '';
  if (seconds <= 2) return 'almost done';
  if (seconds < 90) return `about ${seconds} s left`;
  return `about ${Math.round(seconds / 60)} min left`;
}
