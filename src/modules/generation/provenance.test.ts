import { describe, expect, it } from 'vitest';
import type { AssetInput } from './inputs.ts';
import { environmentProvenance, modelOf, sceneProvenance, videoProvenance } from './provenance.ts';

const input = (assetId: string): AssetInput => ({
  assetId,
  assetType: 'image',
  key: `k/${assetId}`,
  fileName: `${assetId}.png`,
  tags: [],
  colors: [],
});

describe('the digital source type each engine claims (docs/decisions/generation.md, "Content Credentials")', () => {
  it('the local scene engine: compositeSynthetic, the products and the environment placed', () => {
    const p = sceneProvenance(
      { engine: 'local', warnings: [] },
      { products: [input('p')], environment: input('e') },
      'x',
    );
    expect(p.sourceType).toBe('compositeSynthetic');
    expect(p.ingredients.map((i) => [i.input.assetId, i.relationship])).toEqual([
      ['p', 'componentOf'],
      ['e', 'componentOf'],
    ]);
    expect(p).not.toHaveProperty('model');
  });

  it("a provider's scene: trainedAlgorithmicMedia with its inputs; recomposited by the fidelity check: compositeWithTrainedAlgorithmicMedia", () => {
    const drawn = sceneProvenance(
      { engine: 'openai-images:gpt-image-1+fidelity', warnings: [{ code: 'PRODUCT_FIDELITY_CHECKED' }] },
      { products: [input('p')] },
      'x',
    );
    expect(drawn).toMatchObject({ sourceType: 'trainedAlgorithmicMedia', model: 'gpt-image-1' });
    expect(drawn.ingredients[0]?.relationship).toBe('inputTo');
    const recomposited = sceneProvenance(
      { engine: 'fal:flux-kontext+fidelity', warnings: [{ code: 'PRODUCT_RECOMPOSITED' }] },
      { products: [input('p')], environment: input('e') },
      'x',
    );
    expect(recomposited.sourceType).toBe('compositeWithTrainedAlgorithmicMedia');
    expect(recomposited.ingredients.map((i) => i.relationship)).toEqual(['componentOf', 'inputTo']);
  });

  it('environments: algorithmicMedia locally, trainedAlgorithmicMedia from a provider', () => {
    expect(environmentProvenance('local', 'x').sourceType).toBe('algorithmicMedia');
    expect(environmentProvenance('replicate:some/model', 'x')).toMatchObject({
      sourceType: 'trainedAlgorithmicMedia',
      model: 'some/model',
    });
  });

  it('videos: the local engine places its frames (compositeSynthetic); a provider is given them', () => {
    const frames = { start: input('s'), end: input('e'), intermediate: [], referenceImages: [input('r')] };
    const local = videoProvenance('local', frames, 'x');
    expect(local.sourceType).toBe('compositeSynthetic');
    expect(local.ingredients.map((i) => [i.input.assetId, i.relationship])).toEqual([
      ['s', 'componentOf'],
      ['e', 'componentOf'],
      ['r', 'inputTo'],
    ]);
    expect(videoProvenance('local', { intermediate: [], referenceImages: [] }, 'x').sourceType).toBe(
      'algorithmicMedia',
    );
    expect(videoProvenance('runway:gen4_turbo', frames, 'x')).toMatchObject({
      sourceType: 'trainedAlgorithmicMedia',
      model: 'gen4_turbo',
    });
  });

  it('modelOf', () => {
    expect(modelOf('local')).toBeUndefined();
    expect(modelOf('openai-images:gpt-image-1+fidelity')).toBe('gpt-image-1');
  });
});
