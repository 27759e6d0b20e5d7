import { describe, expect, it } from 'vitest';
import {
  dnaFieldLabel,
  endOfDayIso,
  errorText,
  formatBytes,
  formatDate,
  keyState,
  percent,
  poolViews,
  relativeTime,
  splitList,
  textOn,
} from '../src/format.ts';

describe('formatters', () => {
  it('relative times', () => {
    const now = Date.parse('2026-01-10T12:00:00Z');
    expect(relativeTime(null, now)).toBe('never');
    expect(relativeTime('2026-01-10T11:59:30Z', now)).toBe('just now');
    expect(relativeTime('2026-01-10T11:55:00Z', now)).toBe('5 min ago');
    expect(relativeTime('2026-01-10T09:00:00Z', now)).toBe('3 h ago');
    expect(relativeTime('2026-01-08T12:00:00Z', now)).toBe('2 d ago');
    expect(relativeTime('2026-01-14T12:00:00Z', now)).toBe('in 4 d');
    expect(relativeTime('garbage', now)).toBe('never');
  });

  it('dates, bytes, percents', () => {
    expect(formatDate(undefined)).toBe('—');
    expect(formatDate('nope')).toBe('—');
    expect(formatDate('2026-01-10T12:00:00Z')).toMatch(/2026/);
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1500)).toBe('1.5 KB');
    expect(formatBytes(12_000_000)).toBe('12 MB');
    expect(formatBytes(-1)).toBe('—');
    expect(percent(0.424)).toBe('42%');
    expect(percent(2)).toBe('100%');
  });

  it('key states', () => {
    const now = Date.parse('2026-01-10T12:00:00Z');
    expect(keyState({ revokedAt: null, expiresAt: null }, now)).toBe('active');
    expect(keyState({ revokedAt: null, expiresAt: '2026-02-01T00:00:00Z' }, now)).toBe('active');
    expect(keyState({ revokedAt: null, expiresAt: '2026-01-01T00:00:00Z' }, now)).toBe('expired');
    expect(keyState({ revokedAt: '2026-01-01T00:00:00Z', expiresAt: '2026-01-01T00:00:00Z' }, now)).toBe('revoked');
  });

  it('usage pools as meters', () => {
    const views = poolViews({
      image_generations: { usage: 12, cap: 100, unlimited: false },
      video_seconds: { usage: 85, cap: 100, unlimited: false },
      prompt_enhancements: { usage: 5, cap: 5, unlimited: false },
      environment_generations: { usage: 3, cap: -1, unlimited: true },
      brand_dna_extractions: { usage: 0, cap: 0, unlimited: false },
    });
    expect(views.map((v) => [v.id, v.text, v.fraction, v.level])).toEqual([
      ['image_generations', '12 / 100 images', 0.12, 'ok'],
      ['video_seconds', '85 / 100 s', 0.85, 'warn'],
      ['prompt_enhancements', '5 / 5 enhancements', 1, 'full'],
      ['environment_generations', '3 environments · unlimited', undefined, 'ok'],
      // A pool the plan does not have is a fact of the plan, not a full red meter.
      ['brand_dna_extractions', 'Not in your plan', undefined, 'off'],
    ]);
    expect(poolViews(undefined)).toEqual([]);
    const gated = poolViews({ video_seconds: { usage: 0, cap: 30, unlimited: false } }, new Set(['video_seconds']));
    expect(gated.map((v) => [v.text, v.level])).toEqual([['Not in your plan', 'off']]);
    // Singular with one: "1 run", "1 / 1 image".
    const one = poolViews({
      brand_dna_extractions: { usage: 1, cap: -1, unlimited: true },
      image_generations: { usage: 1, cap: 1, unlimited: false },
    });
    expect(one.map((v) => v.text)).toEqual(['1 run · unlimited', '1 / 1 image']);
  });

  it('Brand DNA field paths as words', () => {
    expect(
      [
        'identity.tagline',
        'voice.words_to_avoid',
        'visual.typography.heading',
        'voice.descriptors',
        'visual.logos',
      ].map(dnaFieldLabel),
    ).toEqual(['tagline', 'words to avoid', 'heading font', 'voice', 'logos']);
  });

  it('lists, expiry days, contrast, errors', () => {
    expect(splitList(' a, b ,,a\nc ')).toEqual(['a', 'b', 'c']);
    expect(endOfDayIso('2026-03-01')).toBe('2026-03-01T23:59:59.000Z');
    expect(endOfDayIso('')).toBeUndefined();
    expect(endOfDayIso('2026-13-45')).toBeUndefined();
    expect(textOn('#ffffff')).toBe('#000');
    expect(textOn('#111')).toBe('#fff');
    expect(textOn('#2f4f8f')).toBe('#fff');
    expect(textOn('#ffd400')).toBe('#000');
    expect(textOn('bad')).toBe('#000');
    expect(errorText(Object.assign(new Error('Brand not found'), { code: 'NOT_FOUND' }))).toBe(
      'Brand not found (NOT_FOUND)',
    );
    expect(errorText(new Error('x'))).toBe('x');
    expect(errorText(undefined)).toBe('');
  });
});
