import type { GenerationStatus } from './generation.schemas.ts';

/**
 * A forge's status from its variations' (every generation's): `pending` while none has started,
 * `processing` while any is not terminal, then `completed` when at least one completed and
 * `failed` when none did.
 */
export function rollUpStatus(variations: readonly GenerationStatus[]): GenerationStatus {
  if (variations.length === 0) return 'pending';
  if (variations.every((s) => s === 'pending')) return 'pending';
  if (variations.some((s) => s === 'pending' || s === 'processing')) return 'processing';
  return variations.some((s) => s === 'completed') ? 'completed' : 'failed';
}

/** A stable 31-bit seed from an id (and a salt), so a rerun of a job makes the same image. */
export function seedOf(id: string, salt = 0): number {
  let h = 2166136261 ^ salt;
  for (let i = 0; i < id.length; i++) {
    h ^= id.charCodeAt(i);
    h = Math.imul(h, 16777619);
  }
  return (h >>> 0) & 0x7fffffff;
}
