import { describe, expect, it } from 'vitest';
import { exampleOf } from './openapi-example.ts';

describe('exampleOf', () => {
  it('fills required members by name and format, optional ones only when it knows them', () => {
    const ex = exampleOf({
      type: 'object',
      required: ['blendingPrompt', 'brandId', 'count', 'tags'],
      properties: {
        blendingPrompt: { type: 'string', minLength: 1 },
        brandId: { type: 'string', format: 'uuid' },
        count: { type: 'integer', minimum: 2 },
        tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
        partner: { type: 'string', enum: ['default', 'partner-1'] },
        aspectRatio: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        steer: { type: 'string', default: 'attention_potential' },
      },
    });
    expect(ex).toEqual({
      blendingPrompt: 'The red cap on a concrete ledge at golden hour',
      brandId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      count: 2,
      tags: ['a'],
      aspectRatio: '4:3',
      steer: 'attention_potential',
    });
  });

  it('keeps a schema’s own example', () => {
    expect(exampleOf({ type: 'object', examples: [{ x: 1 }] })).toEqual({ x: 1 });
  });
});
