import { describe, expect, it } from 'vitest';
import { featureGate, orList, type PlansAnswer } from '../src/plan.ts';

const plans: PlansAnswer = {
  current: 'free',
  data: [
    { slug: 'free', name: 'Free', features: { brand_dna: false, critique: false }, pools: {} },
    { slug: 'pro', name: 'Pro', features: { brand_dna: true, critique: false }, pools: {} },
    { slug: 'business', name: 'Business', features: { brand_dna: true, critique: true }, pools: {} },
  ],
};

describe('plan gates', () => {
  it('names the plan and the plans that unlock a missing feature', () => {
    expect(featureGate('brand_dna', { brand_dna: false }, 'free', plans)).toEqual({
      allowed: false,
      feature: 'brand_dna',
      label: 'Brand DNA',
      planName: 'Free',
      unlockedBy: ['Pro', 'Business'],
    });
    expect(featureGate('critique', { critique: false }, 'free', plans).unlockedBy).toEqual(['Business']);
  });

  it('is undecided while loading, and open when the plan has the feature (an override counts)', () => {
    expect(featureGate('brand_dna', undefined, undefined, undefined).allowed).toBeUndefined();
    expect(featureGate('brand_dna', { brand_dna: true }, 'free', plans).allowed).toBe(true);
    expect(featureGate('brand_dna', { brand_dna: false }, 'custom', plans).planName).toBe('custom');
  });

  it('lists plan names as a person would', () => {
    expect(orList([])).toBe('');
    expect(orList(['Pro'])).toBe('Pro');
    expect(orList(['Pro', 'Business'])).toBe('Pro or Business');
    expect(orList(['Pro', 'Business', 'Enterprise'])).toBe('Pro, Business or Enterprise');
  });
});
