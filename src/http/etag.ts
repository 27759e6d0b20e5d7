import { hash } from 'node:crypto';

/**
 * Entity tags for a JSON representation, and the If-Match / If-None-Match comparisons of
 * RFC 9110 §13.1. Nothing here is brand-specific; other resources may reuse it.
 */

/** A strong ETag: a hash of the serialized representation, so any visible change changes it. */
export function etagOf(representation: unknown): string {
  return `"${hash('sha256', JSON.stringify(representation), 'base64url')}"`;
}

function entityTags(header: string): string[] {
  return header
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

const opaque = (tag: string): string => (tag.startsWith('W/') ? tag.slice(2) : tag);

/** If-Match uses the strong comparison: `*` matches any current representation, a weak tag never matches. */
export function ifMatchSatisfied(header: string, current: string): boolean {
  return entityTags(header).some((t) => t === '*' || t === current);
}

/** If-None-Match uses the weak comparison; true when the client's copy is current (answer 304). */
export function ifNoneMatchHit(header: string | undefined, current: string): boolean {
  if (header === undefined) return false;
  return entityTags(header).some((t) => t === '*' || opaque(t) === opaque(current));
}
