import { LIMITS } from './brand-dna.schemas.ts';

/**
 * Why a URL cannot be a Brand DNA web address (a page to extract, or a logo image), or undefined
 * when it can: absolute http(s), no user name or password, at most 2048 characters once normalised.
 */
export function webUrlProblem(raw: string): string | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return 'must be an http(s) URL';
  if (u.username || u.password) return 'must not contain a user name or password';
  if (u.href.length > LIMITS.url) return `must be at most ${LIMITS.url} characters`;
  return undefined;
}
