import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tidyText } from './text.ts';

describe('tidyText', () => {
  it('unifies breaks, collapses spaces and blank lines, joins parts with a blank line', () => {
    expect(tidyText(['  Hello\r\n  world\t\t!\u0007 \n\n\n\nEnd  ', '', 'Page two'], 1000)).toEqual({
      text: 'Hello\nworld !\n\nEnd\n\nPage two',
      truncated: false,
      wordCount: 6,
    });
  });

  it('cuts on a word boundary near the limit', () => {
    const r = tidyText(['alpha beta gamma delta'], 14);
    expect(r).toEqual({ text: 'alpha beta', truncated: true, wordCount: 2 });
  });

  it('never returns more than maxChars', () => {
    fc.assert(
      fc.property(fc.array(fc.string()), fc.integer({ min: 0, max: 50 }), (parts, max) => {
        const r = tidyText(parts, max);
        expect(r.text.length).toBeLessThanOrEqual(max);
        expect(r.text).toBe(r.text.trim());
      }),
    );
  });
});
