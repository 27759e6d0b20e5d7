import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sanitizeFileName } from './assets.keys.ts';

describe('sanitizeFileName', () => {
  it.each([
    ['photo.jpg', 'photo.jpg'],
    ['../../etc/passwd', 'passwd'],
    ['C:\\Users\\me\\shot.png', 'shot.png'],
    ['..hidden.png', 'hidden.png'],
    ['a\u0000b\u202Ec.png', 'abc.png'],
    ['what?.pdf', 'what_.pdf'],
    ['   ', 'file'],
    ['folder/', 'file'],
  ])('%j → %j', (input, out) => {
    expect(sanitizeFileName(input)).toBe(out);
  });

  it('bounds long names and keeps the extension', () => {
    const name = sanitizeFileName(`${'é'.repeat(400)}.jpeg`);
    expect([...name].length).toBe(255);
    expect(name.endsWith('.jpeg')).toBe(true);
  });

  it('never returns a path, a control character or an empty name', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 600 }), (s) => {
        const out = sanitizeFileName(s);
        expect(out.length).toBeGreaterThan(0);
        expect([...out].length).toBeLessThanOrEqual(255);
        // biome-ignore lint/suspicious/noControlCharactersInRegex: asserting control characters are gone
        expect(out).not.toMatch(/[\\/\u0000-\u001f]/);
        expect(out.startsWith('.')).toBe(false);
      }),
    );
  });
});
