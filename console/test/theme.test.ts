import { describe, expect, it } from 'vitest';
import { parsePref, resolveTheme } from '../src/theme.ts';

describe('theme', () => {
  it('follows the system unless the person picked light or dark', () => {
    expect(resolveTheme('system', true)).toBe('dark');
    expect(resolveTheme('system', false)).toBe('light');
    expect(resolveTheme('light', true)).toBe('light');
    expect(resolveTheme('dark', false)).toBe('dark');
  });

  it('reads a stored preference, anything unknown as system', () => {
    expect(parsePref('dark')).toBe('dark');
    expect(parsePref('light')).toBe('light');
    expect(parsePref(null)).toBe('system');
    expect(parsePref('purple')).toBe('system');
  });
});
