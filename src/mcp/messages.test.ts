import { describe, expect, it } from 'vitest';
import { invalidParams } from './messages.ts';

describe('invalidParams', () => {
  it('names malformed tools/call and resources/read params, with the request id', () => {
    expect(invalidParams({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { arguments: {} } })).toMatchObject({
      id: 3,
      message: expect.stringMatching(/params.name/),
    });
    expect(
      invalidParams({ jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'x', arguments: [1] } }),
    ).toMatchObject({ id: 'a', message: expect.stringMatching(/must be an object/) });
    expect(invalidParams({ jsonrpc: '2.0', id: 4, method: 'resources/read', params: {} })?.id).toBe(4);
  });

  it('lets well-formed requests, notifications and other methods through to the SDK', () => {
    expect(invalidParams({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'x' } })).toBeUndefined();
    expect(invalidParams({ jsonrpc: '2.0', method: 'tools/call' })).toBeUndefined();
    expect(invalidParams({ jsonrpc: '2.0', id: 1, method: 'tools/list' })).toBeUndefined();
    expect(invalidParams('nonsense')).toBeUndefined();
  });
});
