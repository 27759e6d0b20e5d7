import { describe, expect, it } from 'vitest';
import { etagOf, ifMatchSatisfied, ifNoneMatchHit } from './etag.ts';

describe('etagOf', () => {
  it('is a quoted strong tag that follows every visible change', () => {
    const a = etagOf({ id: 'x', name: 'A' });
    expect(a).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    expect(etagOf({ id: 'x', name: 'A' })).toBe(a);
    expect(etagOf({ id: 'x', name: 'B' })).not.toBe(a);
    expect(etagOf({ id: 'x', name: 'A', extra: 1 })).not.toBe(a);
  });
});

describe('ifMatchSatisfied (strong comparison)', () => {
  const tag = '"abc"';
  it.each([
    ['"abc"', true],
    ['*', true],
    ['"zzz", "abc"', true],
    [' "zzz" ,"abc" ', true],
    ['"zzz"', false],
    ['W/"abc"', false],
    ['abc', false],
    [',', false],
  ])('%s → %s', (header, expected) => {
    expect(ifMatchSatisfied(header, tag)).toBe(expected);
  });
});

describe('ifNoneMatchHit (weak comparison)', () => {
  const tag = '"abc"';
  it.each([
    [undefined, false],
    ['"abc"', true],
    ['W/"abc"', true],
    ['*', true],
    ['"x", W/"abc"', true],
    ['"x"', false],
    ['', false],
  ])('%s → %s', (header, expected) => {
    expect(ifNoneMatchHit(header, tag)).toBe(expected);
  });
});
