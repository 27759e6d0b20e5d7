/** A running generation's stage, its parts as they land, and an estimate from recent runs. */
import { useEffect, useState } from 'preact/hooks';
import { etaText, remainingSeconds, type Stage } from '../progress.ts';
import { ProgressBar } from '../ui.tsx';

/** The time now, again every `ms` while mounted. */
function useNow(ms: number) {
  const [now, setNow] = useState(Date.now);
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), ms);
    return () => clearInterval(timer);
  }, [ms]);
  return now;
}

export function RunProgress({ stage, createdAt, recent }: { stage: Stage; createdAt: string; recent: number[] }) {
  const now = useNow(1000);
  const eta = etaText(remainingSeconds(recent, now - Date.parse(createdAt)));
  return (
    <div class="run-progress" data-testid="run-progress" data-stage={stage.stage}>
      <ProgressBar value={stage.total ? stage.ready / stage.total : undefined} label={stage.label} />
      <p class="run-progress-text">
        <span role="status">{stage.label}</span>
        {eta ? (
          <span class="muted" data-testid="run-eta">
            {' · '}
            {eta}
          </span>
        ) : null}
      </p>
    </div>
  );
}

/** What a variation not yet landed shows instead of a bare spinner. */
export function PendingTile({ status }: { status: string }) {
  return (
    <div class="thumb-placeholder pending-tile" data-testid="pending-tile">
      {status === 'failed' ? (
        'failed'
      ) : (
        <>
          <span class="spinner" aria-hidden="true" />
          <span>{status === 'processing' ? 'Generating…' : 'Queued'}</span>
        </>
      )}
    </div>
  );
}
