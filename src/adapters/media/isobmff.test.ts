import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkTopLevelBoxes } from './isobmff.ts';
import { MediaError } from './media-error.ts';

const box = (type: string, size: number, declared = size) => {
  const b = Buffer.alloc(size);
  b.writeUInt32BE(declared, 0);
  b.write(type, 4, 'latin1');
  return b;
};
const reader = (file: Buffer) => async (offset: number, length: number) => file.subarray(offset, offset + length);
const check = (file: Buffer) => checkTopLevelBoxes(reader(file), file.length);

describe('checkTopLevelBoxes', () => {
  it('walks a complete file', async () => {
    const file = Buffer.concat([box('ftyp', 24), box('moov', 100), box('mdat', 1000)]);
    expect(await check(file)).toEqual(['ftyp', 'moov', 'mdat']);
  });

  it('accepts 64-bit sizes, a last box running to the end, and short trailing padding', async () => {
    const large = Buffer.alloc(40);
    large.writeUInt32BE(1, 0);
    large.write('mdat', 4, 'latin1');
    large.writeBigUInt64BE(40n, 8);
    const toEnd = box('mdat', 50, 0);
    expect(await check(Buffer.concat([box('moov', 16), large, toEnd]))).toEqual(['moov', 'mdat', 'mdat']);
    expect(await check(Buffer.concat([box('moov', 16), Buffer.alloc(3)]))).toEqual(['moov']);
  });

  it('reports a truncated file', async () => {
    const whole = Buffer.concat([box('ftyp', 24), box('moov', 100), box('mdat', 1000)]);
    const err = await check(whole.subarray(0, 600)).catch((e: unknown) => e);
    expect(err).toMatchObject({
      code: 'CORRUPT',
      message: 'The video file is incomplete (truncated); upload it again.',
    });
    expect((err as MediaError).details).toEqual({ box: 'mdat', boxEnd: 1124, fileSize: 600 });
  });

  it('reports a file without a movie header and damaged box sizes', async () => {
    await expect(check(Buffer.concat([box('ftyp', 24), box('mdat', 100)]))).rejects.toMatchObject({ code: 'CORRUPT' });
    await expect(check(Buffer.concat([box('ftyp', 24), box('moov', 16, 4)]))).rejects.toMatchObject({
      code: 'CORRUPT',
    });
  });

  it('only ever fails with MediaError on arbitrary bytes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 200 }), async (bytes) => {
        await check(Buffer.from(bytes)).catch((err: unknown) => expect(err).toBeInstanceOf(MediaError));
      }),
    );
  });
});
