import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scoreDeltas } from '../scenes/scenes.jobs.ts';
import type { GenerationStatus } from './generation.schemas.ts';
import { colorWord, conditionPrompt, ENGINE_PROMPT_MAX, paletteWords } from './prompt.ts';
import { rollUpStatus, seedOf } from './rollup.ts';

const dna = {
  versionId: 'v',
  palette: [
    { hex: '#c8102e', role: 'primary' },
    { hex: '#ffffff', role: 'background' },
    { hex: '#1d1d1b', role: 'text', name: 'Ink Black' },
  ],
  tone: ['Friendly', 'Playful', 'Casual'],
  descriptors: [],
  imageryStyle: ['bright', 'airy', 'candid', 'minimal'],
  wordsToAvoid: [],
};

describe('rollUpStatus', () => {
  it.each([
    [[], 'pending'],
    [['pending', 'pending'], 'pending'],
    [['pending', 'processing'], 'processing'],
    [['completed', 'pending'], 'processing'],
    [['completed', 'failed'], 'completed'],
    [['failed', 'failed'], 'failed'],
    [['completed', 'completed', 'failed', 'processing'], 'processing'],
  ] as [GenerationStatus[], GenerationStatus][])('%j → %s', (statuses, expected) => {
    expect(rollUpStatus(statuses)).toBe(expected);
  });

  it('is terminal only when every variation is, and then completed iff one completed', () => {
    const status = fc.constantFrom<GenerationStatus>('pending', 'processing', 'completed', 'failed');
    fc.assert(
      fc.property(fc.array(status, { minLength: 1, maxLength: 12 }), (all) => {
        const r = rollUpStatus(all);
        const terminal = all.every((s) => s === 'completed' || s === 'failed');
        expect(r === 'completed' || r === 'failed').toBe(terminal);
        if (terminal) expect(r === 'completed').toBe(all.includes('completed'));
      }),
    );
  });
});

describe('seedOf', () => {
  it('is stable, differs by salt and id, and stays a 31-bit integer', () => {
    expect(seedOf('abc', 1)).toBe(seedOf('abc', 1));
    expect(seedOf('abc', 1)).not.toBe(seedOf('abc', 2));
    expect(seedOf('abc')).not.toBe(seedOf('abd'));
    fc.assert(
      fc.property(fc.string(), fc.integer({ min: 0, max: 1000 }), (id, salt) => {
        const s = seedOf(id, salt);
        expect(Number.isInteger(s) && s >= 0 && s < 2 ** 31).toBe(true);
      }),
    );
  });
});

describe('conditionPrompt', () => {
  it('leaves the text alone without Brand DNA or when it is an accepted enhancement', () => {
    expect(conditionPrompt('  Mugs on marble ', {}, false)).toBe('Mugs on marble');
    expect(conditionPrompt('Mugs on marble', { dna }, true)).toBe('Mugs on marble');
  });

  it('adds the DNA cues the text does not already name, as words', () => {
    expect(conditionPrompt('Mugs on marble.', { dna }, false)).toBe(
      'Mugs on marble. Brand colour accents in red, white and ink black; friendly and playful mood; bright, airy and candid imagery.',
    );
    const out = conditionPrompt('Red mugs in a friendly, bright kitchen', { dna }, false);
    expect(out).toBe(
      'Red mugs in a friendly, bright kitchen. Brand colour accents in white and ink black; playful mood; airy and candid imagery.',
    );
    expect(out).not.toMatch(/#[0-9a-f]{6}/i);
  });

  it('never passes the engine bound', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 2500 }), (text) => {
        expect(conditionPrompt(text, { dna }, false).length).toBeLessThanOrEqual(ENGINE_PROMPT_MAX);
      }),
    );
  });

  it('names colours by their DNA name, else the nearest plain word', () => {
    expect(colorWord({ hex: '#1d1d1b', name: 'Ink Black' })).toBe('ink black');
    expect(colorWord({ hex: '#c8102e' })).toBe('red');
    expect(paletteWords({ dna }, 2)).toEqual(['red', 'white']);
  });
});

describe('scoreDeltas', () => {
  it('is each score minus the source, one decimal', () => {
    expect(
      scoreDeltas(
        { attention_potential: 71.26, conversion: 60, brand_awareness: 10.05 },
        { attention_potential: 70, conversion: 65.5, brand_awareness: 10 },
      ),
    ).toEqual({ attention_potential: 1.3, conversion: -5.5, brand_awareness: 0.1 });
  });
});
