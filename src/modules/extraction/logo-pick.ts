import { LOGO_PICK_MIN } from './logo.ts';
import type { RankedCandidate } from './ranking.ts';

/**
 * The page's logo: the best candidate ranked for purpose `logo` that is not rejected, when it
 * scores at least `LOGO_PICK_MIN`; else none.
 */
export function pickLogo(ranked: readonly RankedCandidate[]): RankedCandidate | undefined {
  const best = ranked.find((r) => !r.rejection);
  return best && best.relevanceScore >= LOGO_PICK_MIN ? best : undefined;
}
