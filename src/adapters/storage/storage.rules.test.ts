import path from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStorageError } from './storage.port.ts';
import type { ObjectStorage } from './storage.port.ts';
import {
  assertValidPrefix,
  checkedStorage,
  contentDisposition,
  downloadLinkTimes,
  exactLength,
  isValidContentType,
  isValidKey,
  LINK_ROUNDING_SECONDS,
  parseRangeHeader,
  uploadLinkTimes,
} from './storage.rules.ts';

const segmentChar = fc.constantFrom(...'abcXYZ019._-'.split(''));
const validSegment = fc
  .tuple(fc.constantFrom(...'aZ9_-'.split('')), fc.string({ unit: segmentChar, maxLength: 20 }))
  .map(([a, b]) => a + b);

describe('isValidKey', () => {
  it('accepts keys of safe segments, and every such key stays inside the root', () => {
    fc.assert(
      fc.property(fc.array(validSegment, { minLength: 1, maxLength: 8 }), (segs) => {
        const key = segs.join('/');
        expect(isValidKey(key)).toBe(true);
        const root = '/srv/blobs';
        const p = path.resolve(root, ...key.split('/'));
        expect(p.startsWith(`${root}/`)).toBe(true);
        expect(new URL(`http://h/v1/blobs/${key}`).pathname).toBe(`/v1/blobs/${key}`);
      }),
    );
  });

  it('refuses any key with a dot segment, an empty segment, or a character outside the set', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 30 }), (key) => {
        if (!isValidKey(key)) return;
        // Whatever random text passes must be made of safe segments.
        for (const seg of key.split('/')) expect(seg).toMatch(/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/);
      }),
    );
    for (const bad of ['', '.', '..', 'a/..', '../a', '/a', 'a/', 'a//b', '.x', 'a/.x', 'a~', 'a b', 'a\\b', 'a%2f']) {
      expect(isValidKey(bad), bad).toBe(false);
    }
    expect(isValidKey(123)).toBe(false);
    expect(isValidKey(`a/${'b'.repeat(255)}`)).toBe(true);
    expect(isValidKey(`a/${'b'.repeat(256)}`)).toBe(false);
  });

  it('takes prefixes as key folders ending in a slash', () => {
    expect(() => assertValidPrefix('orgs/o/assets/a/')).not.toThrow();
    for (const bad of ['', '/', 'orgs', 'orgs//', '../', 'orgs/../']) {
      expect(() => assertValidPrefix(bad), bad).toThrow(/Invalid key prefix/);
    }
  });
});

describe('isValidContentType', () => {
  it('accepts media types with parameters and refuses header injection', () => {
    for (const ok of [
      'image/png',
      'video/quicktime',
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
      'text/plain; charset=utf-8',
      'font/woff2',
    ]) {
      expect(isValidContentType(ok), ok).toBe(true);
    }
    for (const bad of [
      '',
      'image',
      'image/',
      'text/plain\r\nx: y',
      'a b/c',
      'image/png;',
      `image/${'x'.repeat(300)}`,
    ]) {
      expect(isValidContentType(bad), bad).toBe(false);
    }
  });
});

describe('link times', () => {
  it('upload links live exactly the lifetime from the current second', () => {
    const now = new Date('2030-01-01T00:00:10.900Z');
    const { signedAt, expiresAt } = uploadLinkTimes(now, 900);
    expect(signedAt.toISOString()).toBe('2030-01-01T00:00:10.000Z');
    expect(expiresAt.toISOString()).toBe('2030-01-01T00:15:10.000Z');
  });

  it('download links live at least the lifetime and are the same within a window', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1_700_000_000_000, max: 2_000_000_000_000 }),
        fc.integer({ min: 60, max: 86_400 }),
        (ms, ttl) => {
          const now = new Date(ms);
          const { signedAt, expiresAt } = downloadLinkTimes(now, ttl);
          expect(signedAt.getTime()).toBeLessThanOrEqual(ms);
          expect(expiresAt.getTime() - ms).toBeGreaterThanOrEqual(ttl * 1000);
          expect(expiresAt.getTime() - ms).toBeLessThanOrEqual((ttl + LINK_ROUNDING_SECONDS) * 1000);
          expect(signedAt.getTime() % (LINK_ROUNDING_SECONDS * 1000)).toBe(0);
        },
      ),
    );
    const a = downloadLinkTimes(new Date('2030-01-01T00:05:00.000Z'), 60);
    const b = downloadLinkTimes(new Date('2030-01-01T00:09:59.999Z'), 60);
    expect(a).toEqual(b);
  });
});

describe('contentDisposition', () => {
  it('gives an ASCII fallback and the UTF-8 name', () => {
    expect(contentDisposition('inline', 'report.pdf')).toBe(
      `inline; filename="report.pdf"; filename*=UTF-8''report.pdf`,
    );
    expect(contentDisposition('attachment', 'Ünïcode (1).png')).toBe(
      `attachment; filename="_n_code (1).png"; filename*=UTF-8''%C3%9Cn%C3%AFcode%20%281%29.png`,
    );
    expect(contentDisposition('inline')).toBe('inline');
    expect(contentDisposition('inline', '\r\n')).toBe('inline');
    expect(contentDisposition('inline', 'a\ud800b')).toBe(`inline; filename="a_b"; filename*=UTF-8''a_b`);
  });

  it('never yields a control character, whatever the file name', () => {
    fc.assert(
      fc.property(
        // Any code points, lone surrogates included (JSON can carry them).
        fc
          .array(fc.oneof(fc.nat(0x7f), fc.nat(0x10ffff)), { maxLength: 80 })
          .map((cps) => String.fromCodePoint(...cps)),
        (name) => {
          expect(contentDisposition('inline', name)).not.toMatch(/\p{Cc}/u);
          expect(contentDisposition('inline', name)).toMatch(
            /^inline(; filename="[\x20-\x7e]*"; filename\*=UTF-8''[\x21-\x7e]*)?$/,
          );
        },
      ),
    );
  });
});

describe('parseRangeHeader', () => {
  it('parses one range, clamps it, and says when it cannot be served', () => {
    expect(parseRangeHeader(undefined, 10)).toBeUndefined();
    expect(parseRangeHeader('bytes=0-0', 10)).toEqual({ start: 0, end: 0 });
    expect(parseRangeHeader('bytes=2-', 10)).toEqual({ start: 2, end: 9 });
    expect(parseRangeHeader('bytes=-3', 10)).toEqual({ start: 7, end: 9 });
    expect(parseRangeHeader('bytes=-30', 10)).toEqual({ start: 0, end: 9 });
    expect(parseRangeHeader('bytes=5-100', 10)).toEqual({ start: 5, end: 9 });
    expect(parseRangeHeader('bytes=10-', 10)).toBe('unsatisfiable');
    expect(parseRangeHeader('bytes=-0', 10)).toBe('unsatisfiable');
    expect(parseRangeHeader('bytes=0-', 0)).toBe('unsatisfiable');
    for (const ignored of ['bytes=5-2', 'bytes=-', 'bytes=1-2,4-5', 'items=1-2', 'bytes=a-b', '']) {
      expect(parseRangeHeader(ignored, 10), ignored).toBeUndefined();
    }
  });

  it('always returns a range inside the object', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 20 }), fc.nat(1000), (suffix, size) => {
        for (const h of [`bytes=${suffix}`, suffix]) {
          const r = parseRangeHeader(h, size);
          if (r && r !== 'unsatisfiable') {
            expect(r.start).toBeGreaterThanOrEqual(0);
            expect(r.end).toBeLessThan(size);
            expect(r.start).toBeLessThanOrEqual(r.end);
          }
        }
      }),
    );
  });
});

describe('exactLength', () => {
  const run = async (chunks: Buffer[], expected: number) => {
    const out: Buffer[] = [];
    const counter = exactLength(expected);
    counter.on('data', (c: Buffer) => out.push(c));
    await pipeline(Readable.from(chunks), counter);
    return Buffer.concat(out);
  };

  it('passes exactly the expected bytes', async () => {
    expect(await run([Buffer.from('ab'), Buffer.from('cd')], 4)).toEqual(Buffer.from('abcd'));
    expect(await run([], 0)).toEqual(Buffer.alloc(0));
  });

  it('fails on one byte too many or too few', async () => {
    const err = await run([Buffer.from('abcde')], 4).catch((e: unknown) => e);
    expect(isStorageError(err, 'TOO_LARGE')).toBe(true);
    const short = await run([Buffer.from('abc')], 4).catch((e: unknown) => e);
    expect(isStorageError(short, 'TOO_SMALL')).toBe(true);
  });
});

describe('checkedStorage', () => {
  /** A backend that records what reaches it. */
  function recording() {
    const calls: unknown[][] = [];
    const record =
      (name: string) =>
      async (...args: unknown[]) => {
        calls.push([name, ...args]);
        return undefined as never;
      };
    const backend = {
      kind: 'local',
      extra: 'kept',
      createUploadLink: record('createUploadLink'),
      createDownloadLink: record('createDownloadLink'),
      head: record('head'),
      readRange: record('readRange'),
      getStream: record('getStream'),
      put: record('put'),
      delete: record('delete'),
      deletePrefix: record('deletePrefix'),
      prepare: record('prepare'),
      close: record('close'),
    } satisfies ObjectStorage & { extra: string };
    return { calls, storage: checkedStorage(backend) };
  }

  it('refuses bad keys, prefixes, ranges and put arguments before the backend sees them', async () => {
    const { calls, storage } = recording();
    const refusals = [
      storage.head('../etc/passwd'),
      storage.getStream('a//b'),
      storage.delete(''),
      storage.readRange('a/b', 5, 2),
      storage.readRange('a/b', 0, 128 * 1024 * 1024),
      storage.deletePrefix('a/b'),
      storage.put('a/b', Buffer.from('x'), { contentType: 'not a type' }),
      storage.put('a/b', Buffer.from('xy'), { contentType: 'text/plain', contentLength: 3 }),
      storage.put('a/b', Readable.from([]), { contentType: 'text/plain' }),
      storage.put('bad key', Buffer.from('x'), { contentType: 'text/plain' }),
    ];
    for (const p of refusals) await expect(p).rejects.toSatisfy((e) => isStorageError(e));
    expect(calls).toEqual([]);
  });

  it('passes valid calls through, with the length put stores, and keeps the backend’s own members', async () => {
    const { calls, storage } = recording();
    await storage.head('a/b');
    await storage.readRange('a/b', 0, 9);
    await storage.put('a/b', Buffer.from('hello'), { contentType: 'text/plain' });
    await storage.deletePrefix('a/');
    expect(calls.map((c) => c[0])).toEqual(['head', 'readRange', 'put', 'deletePrefix']);
    expect(calls[2]![3]).toEqual({ contentType: 'text/plain', contentLength: 5 });
    expect(storage.extra).toBe('kept');
    expect(storage.kind).toBe('local');
  });
});
