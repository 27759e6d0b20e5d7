import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { buildZip } from '../../../test/fixtures/media/generate.ts';
import { MediaError } from './media-error.ts';
import { tempFiles } from './media.test-harness.ts';
import {
  checkZipBudget,
  findCentralDirectory,
  parseCentralDirectory,
  readZipEntries,
  verifyZipEntries,
} from './zip.ts';

const { write } = tempFiles();

describe('ZIP reading', () => {
  it('lists entries from the central directory', async () => {
    const zip = buildZip([
      { name: 'a.txt', data: 'hello hello hello hello' },
      { name: 'dir/b.bin', data: Buffer.alloc(10), store: true },
    ]);
    const entries = await readZipEntries(write('ok.zip', zip));
    expect(entries.map((e) => [e.name, e.method, e.uncompressedSize])).toEqual([
      ['a.txt', 8, 23],
      ['dir/b.bin', 0, 10],
    ]);
    expect(() => verifyZipEntries(zip, entries)).not.toThrow();
  });

  it('a file without an end record is CORRUPT', async () => {
    const err = await readZipEntries(write('bad.zip', Buffer.from('PK\x03\x04 not really'))).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'CORRUPT' });
  });

  it('ZIP64 markers are UNSUPPORTED', () => {
    const zip = buildZip([{ name: 'a', data: 'x' }]);
    zip.writeUInt16LE(0xffff, zip.length - 12);
    expect(() => findCentralDirectory(zip, 0)).toThrow(expect.objectContaining({ code: 'UNSUPPORTED' }));
  });

  it('a directory pointing past its own end record is CORRUPT', () => {
    const zip = buildZip([{ name: 'a', data: 'x' }]);
    zip.writeUInt32LE(0x7fffffff, zip.length - 6);
    expect(() => findCentralDirectory(zip, 0)).toThrow(expect.objectContaining({ code: 'CORRUPT' }));
  });

  it('never throws anything but MediaError on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.integer({ min: 0, max: 5 }), (bytes, count) => {
        const buf = Buffer.from(bytes);
        for (const run of [() => findCentralDirectory(buf, 0), () => parseCentralDirectory(buf, count)]) {
          try {
            run();
          } catch (err) {
            expect(err).toBeInstanceOf(MediaError);
          }
        }
      }),
    );
  });
});

describe('ZIP bounds', () => {
  it('rejects packages declaring more than the budget', () => {
    const entries = [
      { name: 'x', method: 8, encrypted: false, compressedSize: 10, uncompressedSize: 2_000, localHeaderOffset: 0 },
    ];
    expect(() => checkZipBudget(entries, { maxEntries: 5, maxUncompressedBytes: 1_000 })).toThrow(
      expect.objectContaining({ code: 'TOO_LARGE' }),
    );
    expect(() => checkZipBudget(Array(6).fill(entries[0]), { maxEntries: 5, maxUncompressedBytes: 1e9 })).toThrow(
      expect.objectContaining({ code: 'TOO_LARGE' }),
    );
    expect(() => checkZipBudget(entries, { maxEntries: 5, maxUncompressedBytes: 2_000 })).not.toThrow();
  });

  it('catches an entry that inflates past its declared size (a lying zip bomb)', async () => {
    const bomb = buildZip([{ name: 'word/document.xml', data: Buffer.alloc(5_000_000, 0x41), declaredSize: 100 }]);
    expect(bomb.length).toBeLessThan(20_000);
    const entries = await readZipEntries(write('bomb.zip', bomb));
    checkZipBudget(entries, { maxEntries: 10, maxUncompressedBytes: 1_000 }); // the headers look harmless
    expect(() => verifyZipEntries(bomb, entries)).toThrow(expect.objectContaining({ code: 'TOO_LARGE' }));
  });

  it('catches an entry whose data is cut short or does not inflate', async () => {
    const zip = buildZip([{ name: 'a.xml', data: 'x'.repeat(1000) }]);
    const entries = await readZipEntries(write('short.zip', zip));
    const damaged = Buffer.from(zip);
    damaged.fill(0xff, 30 + 5, 30 + 12); // inside the deflate stream
    expect(() => verifyZipEntries(damaged, entries)).toThrow(expect.objectContaining({ code: 'CORRUPT' }));
    const lying = [{ ...entries[0]!, uncompressedSize: 2000 }];
    expect(() => verifyZipEntries(zip, lying)).toThrow(expect.objectContaining({ code: 'CORRUPT' }));
  });

  it('refuses encrypted entries', () => {
    const zip = buildZip([{ name: 'a', data: 'x' }]);
    const entries = [
      { name: 'a', method: 8, encrypted: true, compressedSize: 3, uncompressedSize: 1, localHeaderOffset: 0 },
    ];
    expect(() => verifyZipEntries(zip, entries)).toThrow(expect.objectContaining({ code: 'UNSUPPORTED' }));
  });
});
