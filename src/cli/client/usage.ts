import { UsageError } from '../args.ts';
import type { Ctx } from './context.ts';
import { table } from './output.ts';

export const USAGE = `atelier usage      feature usage of the key's organization (pools, plan, gated features)`;

export async function run(action: string | undefined, argv: string[], ctx: Ctx): Promise<void> {
  const { positionals } = ctx.parse(action === undefined ? argv : [action, ...argv], {}, USAGE);
  if (positionals.length) throw new UsageError(`usage takes no arguments, got "${positionals[0]}"\n\n${USAGE}`);
  const u = await ctx.atelier.usage.get();
  ctx.print(u, () => {
    const pools = table(
      Object.entries(u.pools).map(([name, p]) => [
        name,
        p.usage,
        p.unlimited ? 'unlimited' : p.cap,
        p.unlimited ? '' : p.remaining,
        p.source,
      ]),
      ['POOL', 'USED', 'CAP', 'REMAINING', 'SOURCE'],
    );
    const features = Object.entries(u.gated_features)
      .map(([k, on]) => `${k}${on ? '' : ' (off)'}`)
      .join(', ');
    return [
      `Plan: ${u.plan_slug}   Billing period: ${u.billing_period.start} → ${u.billing_period.end}`,
      pools,
      `Features: ${features}`,
      ...(u.threshold_alert.threshold !== 'none'
        ? [`Alert: ${u.threshold_alert.pool} at ${u.threshold_alert.threshold}`]
        : []),
    ].join('\n');
  });
}
