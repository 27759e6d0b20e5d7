/**
 * The organization's usage and plan, shared by the sidebar meters and every plan gate: read once,
 * then again on navigation, every 15 s while the page is visible, and at once whenever work that
 * spends a pool starts or ends (refreshUsage), so the meters do not lag behind the gallery.
 */
import { useEffect, useState } from 'preact/hooks';
import { api } from './api.ts';
import { type FeatureGate, featureGate, type PlansAnswer } from './plan.ts';

export type Usage = Awaited<ReturnType<typeof api.usage.get>>;
interface UsageState {
  usage?: Usage;
  plans?: PlansAnswer;
  error?: unknown;
}

let state: UsageState = {};
const listeners = new Set<(s: UsageState) => void>();
let running: Promise<void> | undefined;
let again = false;

const publish = (next: UsageState) => {
  state = next;
  for (const l of listeners) l(state);
};

/** Reads usage (and, the first time, the plan catalog) again; calls made meanwhile coalesce into one more read. */
export function refreshUsage(): Promise<void> {
  if (running) {
    again = true;
    return running;
  }
  running = (async () => {
    try {
      const [usage, plans] = await Promise.all([
        api.usage.get(),
        state.plans ??
          api.http
            .send<PlansAnswer>({ method: 'GET', url: '/v1/organizations/current/plans' })
            .then((r) => r.data)
            .catch(() => undefined),
      ]);
      publish({ usage, ...(plans ? { plans } : {}) });
    } catch (error) {
      publish({ ...state, error });
    } finally {
      running = undefined;
      if (again) {
        again = false;
        void refreshUsage();
      }
    }
  })();
  return running;
}

/** Forgets the organization's usage (on sign-out: the next person may belong to another one). */
export function resetUsage() {
  publish({});
}

export function useUsage(): UsageState {
  const [s, set] = useState(state);
  useEffect(() => {
    listeners.add(set);
    if (!state.usage && !running) void refreshUsage();
    else set(state);
    return () => {
      listeners.delete(set);
    };
  }, []);
  return s;
}

/** Whether the organization's plan has `feature` (undefined while loading), and what unlocks it. */
export function useFeature(feature: string): FeatureGate {
  const s = useUsage();
  return featureGate(feature, s.usage?.gated_features, s.usage?.plan_slug, s.plans);
}
