import { describe, expect, it } from 'vitest';
import { compactView, critiqueSummary } from './views.ts';

const LONG = 'An enhanced prompt that is long enough to be worth giving once. '.repeat(4);
const critique = {
  recommendations: [
    {
      score_name: 'conversion',
      score: 77.1,
      general_recommendation: 'Increase product prominence.',
      recommendation_details: {
        display_summary: 'Excellent conversion (77.1/100). Biggest lever: make the product bigger (+11.9).',
        practical_recommendations: [{ display_title: 'Make the product bigger', text: 'x'.repeat(400) }],
      },
      diagnostics: [{ description: 'y'.repeat(400) }],
    },
  ],
  image_intelligence: { a: 1 },
};

describe('compactView', () => {
  const forge = {
    sceneForgeId: 'f1',
    status: 'completed',
    blendingPrompt: LONG,
    createdAt: '2026-01-01T00:00:00Z',
    productAssets: [{ assetId: 'p1', url: 'https://x/p1?sig', thumbnailUrl: 'https://x/t' }],
    variations: [1, 2].map((n) => ({
      generatedImageId: `v${n}`,
      sceneForgeId: 'f1',
      status: 'completed',
      blendingPrompt: LONG,
      liked: false,
      warnings: [],
      createdAt: '2026-01-01T00:00:00Z',
      asset: { assetId: `a${n}`, url: `https://x/a${n}?sig`, thumbnailUrl: 'https://x/t' },
      scores: { conversion: 77.1 },
      critique,
    })),
    links: { self: '/x' },
  };

  it('keeps ids, status, scores and output links; one line per critique score; long text once', () => {
    const c = compactView(forge) as typeof forge & { variations: Record<string, unknown>[] };
    expect(c.status).toBe('completed');
    expect(c.createdAt).toBe(forge.createdAt); // the top level keeps its times
    expect(c.productAssets).toEqual(['p1']);
    expect(c).not.toHaveProperty('links');
    const v = c.variations[0]!;
    expect(v).toMatchObject({ generatedImageId: 'v1', status: 'completed', scores: { conversion: 77.1 } });
    expect(v.asset).toEqual({ assetId: 'a1', url: 'https://x/a1?sig' });
    expect(v.critique).toEqual([
      { score_name: 'conversion', summary: critique.recommendations[0]!.recommendation_details.display_summary },
    ]);
    // The forge id, the prompt, empty lists, false flags and times are not repeated on each variation.
    for (const key of ['sceneForgeId', 'blendingPrompt', 'liked', 'warnings', 'createdAt'])
      expect(v).not.toHaveProperty(key);
    expect(JSON.stringify(c).length).toBeLessThan(JSON.stringify(forge).length / 2);
  });

  it('in a list, each item’s own lists shrink to ids, status and scores', () => {
    const c = compactView({ data: [forge], pagination: { total: 1 } }, { list: true }) as {
      data: { variations: unknown[] }[];
    };
    expect(c.data[0]!.variations[0]).toEqual({
      generatedImageId: 'v1',
      sceneForgeId: 'f1',
      status: 'completed',
      liked: false,
      scores: { conversion: 77.1 },
      assetId: 'a1',
    });
  });

  it('leaves answers without those members as they are', () => {
    expect(compactView({ id: 'b1', name: 'Acme', tone: ['Casual'] })).toEqual({
      id: 'b1',
      name: 'Acme',
      tone: ['Casual'],
    });
    expect(critiqueSummary(null)).toBeNull();
  });
});
