/** A feature the plan lacks, shown as such: what it does, the plan, and the plans that include it. */
import type { ComponentChildren } from 'preact';
import { orList } from '../plan.ts';
import type { FeatureGate } from '../plan.ts';

export function PlanLocked({ gate, children }: { gate: FeatureGate; children: ComponentChildren }) {
  return (
    <section class="card locked" aria-labelledby="locked-title" data-testid="plan-locked" data-feature={gate.feature}>
      <p class="locked-badge">Not in your plan</p>
      <h2 id="locked-title">
        {gate.label} is not included in the {gate.planName || 'current'} plan
      </h2>
      <div class="locked-body">{children}</div>
      <p data-testid="plan-unlock">
        {gate.unlockedBy.length
          ? `It comes with the ${orList(gate.unlockedBy)} plan${gate.unlockedBy.length > 1 ? 's' : ''}. `
          : ''}
        An admin of your organization can ask the operator to change the plan (<code>atelier admin org set-plan</code>).
      </p>
    </section>
  );
}
