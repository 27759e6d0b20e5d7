import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readToBuffer } from './storage.ts';

const storeOf = (parts: Buffer[]) => ({ getStream: async () => Readable.from(parts) });

describe('readToBuffer', () => {
  it('returns the whole object', async () => {
    const out = await readToBuffer(storeOf([Buffer.from('ab'), Buffer.from('cd')]), 'k', 4);
    expect(out.toString()).toBe('abcd');
  });

  it('stops past the bound and names what it read', async () => {
    await expect(readToBuffer(storeOf([Buffer.from('abc'), Buffer.from('de')]), 'k', 4, 'Asset x')).rejects.toThrow(
      'Asset x is larger than 4 bytes',
    );
  });
});
