import { describe, expect, it } from 'vitest';
import { ACCOUNT_BACKOFF_AFTER, ACCOUNT_BACKOFF_MAX_S, accountBackoffSeconds } from './console.service.ts';

describe('accountBackoffSeconds', () => {
  it('is zero below the threshold, then doubles per failure up to the cap', () => {
    expect(accountBackoffSeconds(0)).toBe(0);
    expect(accountBackoffSeconds(ACCOUNT_BACKOFF_AFTER - 1)).toBe(0);
    expect(accountBackoffSeconds(ACCOUNT_BACKOFF_AFTER)).toBe(1);
    expect(accountBackoffSeconds(ACCOUNT_BACKOFF_AFTER + 3)).toBe(8);
    expect(accountBackoffSeconds(ACCOUNT_BACKOFF_AFTER + 30)).toBe(ACCOUNT_BACKOFF_MAX_S);
  });
});
