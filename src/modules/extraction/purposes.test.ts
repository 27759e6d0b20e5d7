import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { normalizePurpose, PURPOSE_IDS, recognisedPurposeNames, resolvePurpose } from './purposes.ts';

describe('normalizePurpose', () => {
  it('ignores case, hyphens, spaces and underscores', () => {
    expect(normalizePurpose(' Pack-Shot ')).toBe('packshot');
    expect(normalizePurpose('BRAND_LOGO')).toBe('brandlogo');
    expect(normalizePurpose('product\u2011shot')).toBe('productshot');
  });
});

describe('resolvePurpose', () => {
  it.each([
    ['product', 'product'],
    ['product-shot', 'product'],
    ['Product Images', 'product'],
    ['Pack Shot', 'packshot'],
    ['cut-out', 'packshot'],
    ['lifestyle', 'lifestyle'],
    ['In Situ', 'lifestyle'],
    ['logo', 'logo'],
    ['brandlogo', 'logo'],
    ['Brand-Logo', 'logo'],
    ['hero', 'hero'],
    ['Banner', 'hero'],
    ['background', 'background'],
    ['environment', 'background'],
    ['social', 'social'],
    ['og:image', 'social'],
    ['people', 'people'],
    ['Models', 'people'],
  ])('recognises %s as %s', (input, id) => {
    const r = resolvePurpose(input);
    expect(r.profile.id).toBe(id);
    expect(r.recognised).toBe(true);
    expect(r.freeText).toEqual([]);
    expect(r.input).toBe(input);
  });

  it('falls back to the general profile for no purpose', () => {
    for (const input of [null, undefined, '', '   ']) {
      const r = resolvePurpose(input);
      expect(r.profile.id).toBe('general');
      expect(r.recognised).toBe(false);
      expect(r.freeText).toEqual([]);
    }
  });

  it('picks a purpose named inside a sentence and keeps the other words as free text', () => {
    const r = resolvePurpose('lifestyle photos of leather sofas');
    expect(r.profile.id).toBe('lifestyle');
    expect(r.recognised).toBe(true);
    expect(r.freeText).toEqual(['leather', 'sofa']);
    const pair = resolvePurpose('pack shot of red boots');
    expect(pair.profile.id).toBe('packshot');
    expect(pair.freeText).toEqual(['red', 'boot']);
  });

  it('uses unrecognised text as free text with the general profile', () => {
    const r = resolvePurpose('Red leather boots');
    expect(r.profile.id).toBe('general');
    expect(r.recognised).toBe(false);
    expect(r.freeText).toEqual(['red', 'leather', 'boot']);
  });

  it('always yields a profile with sane limits (property)', () => {
    fc.assert(
      fc.property(fc.option(fc.string({ maxLength: 64 })), (input) => {
        const { profile } = resolvePurpose(input);
        return PURPOSE_IDS.includes(profile.id) && profile.keep >= 1 && profile.floor > 0 && profile.floor < 1;
      }),
    );
  });

  it('keeps few logos and more lifestyle pictures', () => {
    expect(resolvePurpose('logo').profile.keep).toBeLessThan(resolvePurpose('product').profile.keep);
    expect(resolvePurpose('lifestyle').profile.keep).toBeGreaterThan(resolvePurpose('product').profile.keep);
  });
});

describe('recognisedPurposeNames', () => {
  it('lists spellings for every purpose, all already normalised', () => {
    const names = recognisedPurposeNames();
    for (const id of PURPOSE_IDS) {
      expect(names[id].length, id).toBeGreaterThan(0);
      for (const n of names[id]) expect(normalizePurpose(n)).toBe(n);
    }
  });
});
