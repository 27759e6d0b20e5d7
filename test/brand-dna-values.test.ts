import { describe, expect, it } from 'vitest';
import { analyzeText, statedValues } from '../src/engines/text/local/local-analyzer.ts';
import { emptyAnalysis, type TextAnalysis } from '../src/engines/text/text-engine.ts';
import { withStatedValues } from '../src/modules/brand-dna/extractors.ts';
import { guidelineBlocks } from '../src/modules/brand-dna/guidelines.ts';
import { mergeFindings, type SourceFindings } from '../src/modules/brand-dna/merge.ts';
import { analyzePage } from '../src/modules/brand-dna/page.ts';
import { buildPreview } from '../src/modules/brand-dna/preview.ts';

/**
 * Brand judgement (issue "What it makes", item 5): values a source states outrank values inferred
 * from prose. The example: a guidelines PDF that says "Our values: Craft, Kindness,
 * Curiosity", read together with the brand's website, gave Kindness, Craft, Honesty.
 */

const PDF_TEXT = [
  'Fieldnote Paper Brand Guidelines',
  '',
  'Who we are',
  'We make notebooks for people who write things down. Our values: Craft, Kindness, Curiosity.',
  'Every page is cut and bound in our own workshop.',
].join('\n');

const SITE = `<html><head><title>Fieldnote Paper</title></head><body>
<h1>Notebooks you can trust</h1>
<p>We are honest about where our paper comes from: honest prices, honest materials and an honest answer to every question.</p>
<p>Kindness matters to us, and every notebook is made with kindness in our own workshop.</p>
<p>Honesty is why we print the mill of every sheet on the back cover.</p></body></html>`;

const S_PDF = '00000000-0000-4000-8000-000000000001';
const S_URL = '00000000-0000-4000-8000-000000000002';

function source(sourceId: string, type: 'pdf' | 'url', text: TextAnalysis): SourceFindings {
  return { sourceId, type, colors: [], fonts: [], logos: [], text };
}

const pdfSource = () => {
  const blocks = guidelineBlocks(PDF_TEXT);
  return source(S_PDF, 'pdf', withStatedValues(analyzeText({ blocks }), blocks));
};
const siteSource = () => {
  const blocks = analyzePage(SITE, 'https://fieldnote.example/').blocks;
  return source(S_URL, 'url', withStatedValues(analyzeText({ blocks }), blocks));
};

describe('stated values outrank inferred ones', () => {
  it("keeps the issue's example: Craft, Kindness, Curiosity, in the order stated, before Honesty", () => {
    const site = siteSource();
    // The website states no values; its prose speaks of honesty more than anything.
    expect(site.text!.statedValues).toBeUndefined();
    expect(site.text!.values[0]).toBe('Honesty');
    const { dna } = mergeFindings([pdfSource(), site]);
    expect(dna.identity.values.map((v) => v.value)).toEqual(['Craft', 'Kindness', 'Curiosity', 'Honesty']);
    // The site's reading still counts as a source of the value it shares.
    expect(dna.identity.values[1]).toEqual({ value: 'Kindness', sources: [S_PDF, S_URL] });
    expect(buildPreview(dna, ['pdf', 'url']).topValues).toEqual(['Craft', 'Kindness', 'Curiosity']);
    // Whichever order the sources come in.
    expect(mergeFindings([site, pdfSource()]).dna.identity.values.map((v) => v.value)).toEqual([
      'Craft',
      'Kindness',
      'Curiosity',
      'Honesty',
    ]);
  });

  it('reads stated values whichever engine read the text (a reading with values but no statement)', () => {
    const blocks = guidelineBlocks(PDF_TEXT);
    // A language model's reading: the values it found, in its own order, and no word on which were stated.
    const llm: TextAnalysis = { ...emptyAnalysis(), values: ['Kindness', 'Honesty', 'Craft'] };
    const read = withStatedValues(llm, blocks);
    expect(read.statedValues).toEqual(['Craft', 'Kindness', 'Curiosity']);
    const { dna } = mergeFindings([source(S_PDF, 'pdf', read), siteSource()]);
    expect(dna.identity.values.map((v) => v.value).slice(0, 3)).toEqual(['Craft', 'Kindness', 'Curiosity']);
    // An engine's own claim is not taken for a statement: only the blocks say what was stated.
    expect(
      withStatedValues({ ...llm, statedValues: ['Honesty'] }, [{ kind: 'paragraph', text: 'We are honest.' }]),
    ).toEqual(llm);
  });

  it('finds values stated as a line, under a heading, as a bullet list, or on a page', () => {
    const inline = [
      { kind: 'paragraph' as const, text: 'We make chairs. Our values: Craft, Kindness, Curiosity. We ship.' },
    ];
    expect(statedValues(inline)).toEqual(['Craft', 'Kindness', 'Curiosity']);
    expect(statedValues(guidelineBlocks('Our values\nCraft\nKindness\nCuriosity'))).toEqual([
      'Craft',
      'Kindness',
      'Curiosity',
    ]);
    expect(statedValues(guidelineBlocks('Core values\n- Craft: we make things well\n- Kindness\n- Curiosity'))).toEqual(
      ['Craft', 'Kindness', 'Curiosity'],
    );
    const page = analyzePage(
      '<html><body><h2>Our values</h2><ul><li>Craft</li><li>Kindness</li><li>Curiosity</li></ul><p>Other copy here for the page.</p></body></html>',
      'https://fieldnote.example/about',
    );
    expect(statedValues(page.blocks)).toEqual(['Craft', 'Kindness', 'Curiosity']);
    expect(statedValues([{ kind: 'paragraph', text: 'Our values are craft, kindness and curiosity.' }])).toEqual([
      'Craft',
      'Kindness',
      'Curiosity',
    ]);
  });

  it('takes prose under a values heading, or a sentence about values, for no statement', () => {
    const prose = guidelineBlocks(
      'What we believe\nWe believe that honest work done with kindness lasts longer than anything made in a hurry, and we act on it every day.',
    );
    expect(statedValues(prose)).toEqual([]);
    expect(statedValues([{ kind: 'paragraph', text: 'Our values are important to us.' }])).toEqual([]);
    // The words stay evidence for inference.
    expect(analyzeText({ blocks: prose }).values).toEqual([]);
    expect(analyzeText({ blocks: [...prose, ...prose] }).values).toEqual(['Honesty', 'Kindness']);
  });

  it("keeps the brand's own values first, then values stated by sources, then inferred ones", () => {
    const { dna } = mergeFindings([pdfSource(), siteSource()], { brand: { values: ['Repair', 'curiosity'] } });
    expect(dna.identity.values).toEqual([
      { value: 'curiosity', sources: ['brand', S_PDF] },
      { value: 'Repair', sources: ['brand'] },
      { value: 'Craft', sources: [S_PDF] },
      { value: 'Kindness', sources: [S_PDF, S_URL] },
      { value: 'Honesty', sources: [S_URL] },
    ]);
  });

  it("reads a statement in the brand's description as stated, where the brand states no values", () => {
    const blocks = [{ kind: 'description' as const, text: 'Paper goods. Our values: Craft, Kindness, Curiosity.' }];
    const described = withStatedValues(analyzeText({ blocks }), blocks);
    const { dna } = mergeFindings([siteSource()], { brand: { described } });
    expect(dna.identity.values.map((v) => v.value)).toEqual(['Craft', 'Kindness', 'Curiosity', 'Honesty']);
  });
});
