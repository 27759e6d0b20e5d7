import { decodeHtml } from '../src/adapters/fetch/decode-html.ts';
import fc from 'fast-check';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetcher, FetchError, type FetchErrorCode } from '../src/adapters/fetch/fetcher.ts';
import {
  DEFAULT_INSPECT_LIMITS,
  differenceHash,
  inspectImage,
  paletteFacts,
  svgScale,
  withSvgNamespace,
} from '../src/modules/extraction/extraction.images.ts';
import {
  candidateFileName,
  DEFAULT_PIPELINE_LIMITS,
  decodeDataUrl,
  isHtmlResponse,
  mapLimit,
  pageErrorFromFetch,
  planDownloads,
  runPipeline,
} from '../src/modules/extraction/extraction.pipeline.ts';
import { describeSeconds, stagingPrefix } from '../src/modules/extraction/extraction.service.ts';
import { discoverCandidates } from '../src/modules/extraction/discovery.ts';
import { hammingDistance, rankCandidates } from '../src/modules/extraction/ranking.ts';
import { type FixtureSite, startFixtureSite } from './extraction-site.ts';

describe('differenceHash and paletteFacts', () => {
  it('sets a bit where the left pixel is brighter than its right neighbour', () => {
    const grey = new Uint8Array(72);
    for (let y = 0; y < 8; y++) for (let x = 0; x < 9; x++) grey[y * 9 + x] = 255 - x * 20; // falls left to right
    expect(differenceHash(grey)).toBe('ffffffffffffffff');
    const rising = grey.map((_, i) => (i % 9) * 20);
    expect(differenceHash(rising)).toBe('0000000000000000');
    expect(() => differenceHash(new Uint8Array(10))).toThrow();
  });

  it('is 16 hex digits for any 9x8 raster', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 72, maxLength: 72 }), (g) => {
        expect(differenceHash(g)).toMatch(/^[0-9a-f]{16}$/);
      }),
    );
  });

  it('counts opaque colours and notices transparency', () => {
    const px = Uint8Array.from([255, 0, 0, 255, 255, 0, 0, 255, 0, 0, 255, 255, 9, 9, 9, 0]);
    expect(paletteFacts(px, 4)).toEqual({ hasAlpha: true, colorCount: 2 });
    expect(paletteFacts(Uint8Array.from([1, 2, 3, 4, 5, 6]), 3)).toEqual({ hasAlpha: false, colorCount: 2 });
  });
});

describe('inspectImage', () => {
  const pattern = (seed: number, w: number, h: number) => {
    const grid = Buffer.alloc(5 * 5 * 3);
    for (let i = 0; i < grid.length; i++) grid[i] = (i * 37 + seed * 101) % 256;
    return sharp(grid, { raw: { width: 5, height: 5, channels: 3 } }).resize(w, h, { fit: 'fill' });
  };

  it('keeps JPEG as it is and re-encodes WebP (JPEG when opaque, PNG when transparent)', async () => {
    const jpeg = await pattern(1, 400, 300).jpeg().toBuffer();
    const a = await inspectImage(jpeg);
    expect(a.staged?.format).toBe('JPEG');
    expect(a.staged?.bytes).toBe(jpeg);
    expect(a.measurement).toMatchObject({
      format: 'jpeg',
      width: 400,
      height: 300,
      hasAlpha: false,
      fileSize: jpeg.length,
    });

    const webp = await inspectImage(await pattern(1, 400, 300).webp().toBuffer());
    expect(webp.staged?.format).toBe('JPEG');
    expect((await sharp(webp.staged!.bytes).metadata()).format).toBe('jpeg');
    const clear = await pattern(2, 200, 200).ensureAlpha(0.5).webp().toBuffer();
    const t = await inspectImage(clear);
    expect(t.staged?.format).toBe('PNG');
    expect(t.measurement.hasAlpha).toBe(true);
  });

  it('gives near-identical hashes to resized copies and distant ones to other pictures', async () => {
    const big = await inspectImage(await pattern(3, 1000, 800).jpeg().toBuffer());
    const small = await inspectImage(await pattern(3, 250, 200).jpeg({ quality: 60 }).toBuffer());
    const other = await inspectImage(await pattern(9, 1000, 800).jpeg().toBuffer());
    expect(hammingDistance(big.measurement.phash!, small.measurement.phash!)).toBeLessThanOrEqual(6);
    expect(hammingDistance(big.measurement.phash!, other.measurement.phash!)).toBeGreaterThan(6);
  });

  it('rasterises SVG (with or without its namespace) to PNG at a usable size', async () => {
    const svg = Buffer.from(
      '<svg viewBox="0 0 120 40" width="120" height="40"><rect width="120" height="40" fill="#123"/></svg>',
    );
    const r = await inspectImage(svg);
    expect(r.staged?.format).toBe('PNG');
    expect([r.staged?.width, r.staged?.height]).toEqual([1024, 341]);
    expect(r.measurement).toMatchObject({ format: 'svg', colorCount: 1 });
    expect(withSvgNamespace(svg).toString()).toContain('xmlns="http://www.w3.org/2000/svg"');
    expect(withSvgNamespace(withSvgNamespace(svg))).toEqual(withSvgNamespace(svg));
    expect(svgScale(4000, 1000, DEFAULT_INSPECT_LIMITS)).toBeCloseTo(2048 / 4000);
    expect(svgScale(100, 50, DEFAULT_INSPECT_LIMITS)).toBeCloseTo(10.24);
    const huge = await inspectImage(Buffer.concat([svg, Buffer.alloc(2 * 1024 * 1024, 32)]));
    expect(huge.measurement.decodeError).toMatch(/larger/);
  });

  it('turns bad bytes into a measurement instead of throwing', async () => {
    const jpeg = await pattern(4, 300, 300).jpeg().toBuffer();
    expect((await inspectImage(jpeg.subarray(0, 400))).measurement.decodeError).toBeDefined();
    expect(
      (await inspectImage(Buffer.from('<!doctype html><html><body>x</body></html>'))).measurement.decodeError,
    ).toMatch(/web page/);
    expect((await inspectImage(Buffer.alloc(0))).measurement.decodeError).toMatch(/empty/);
    const bmp = Buffer.alloc(200);
    bmp.write('BM', 0, 'ascii');
    bmp.writeUInt32LE(200, 2);
    bmp.writeUInt32LE(54, 10);
    bmp.writeUInt32LE(40, 14);
    bmp.writeInt32LE(4, 18);
    bmp.writeInt32LE(4, 22);
    bmp.writeUInt16LE(1, 26);
    bmp.writeUInt16LE(24, 28);
    const b = await inspectImage(bmp);
    expect(b.staged).toBeUndefined();
    expect(b.measurement.format).toBe('bmp');
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ maxLength: 512 }), async (bytes) => {
        const r = await inspectImage(Buffer.from(bytes));
        expect(r.sha256).toMatch(/^[0-9a-f]{64}$/);
      }),
      { numRuns: 30 },
    );
  });

  it('never decodes past the pixel bound', async () => {
    const png = await pattern(5, 400, 400).png().toBuffer();
    const r = await inspectImage(png, { ...DEFAULT_INSPECT_LIMITS, maxPixels: 10_000 });
    expect(r.measurement).toMatchObject({ width: 400, height: 400 });
    expect(r.measurement.phash).toBeUndefined();
    expect(r.staged).toBeUndefined();
  });
});

describe('page handling', () => {
  const err = (code: FetchErrorCode, message: string, status?: number) =>
    new FetchError(code, message, 'http://10.1.2.3/x', status);

  it('maps fetch failures to run errors that never name an address', () => {
    const codes: FetchErrorCode[] = [
      'BAD_URL',
      'BAD_SCHEME',
      'CREDENTIALS_IN_URL',
      'BLOCKED_ADDRESS',
      'DNS_FAILURE',
      'CONNECTION_FAILED',
      'TIMEOUT',
      'TOO_LARGE',
      'TOO_MANY_REDIRECTS',
      'HTTP_ERROR',
      'BAD_RESPONSE',
    ];
    const seen = new Set<string>();
    for (const code of codes) {
      const e = pageErrorFromFetch(
        err(code, 'The page redirected to 10.1.2.3, which is not public', 503),
        8 * 1024 * 1024,
      );
      seen.add(e.code);
      expect(e.message).not.toMatch(/10\.1\.2\.3/);
      expect(e.message.endsWith('.')).toBe(true);
    }
    expect([...seen].sort()).toEqual(['BLOCKED_ADDRESS', 'PAGE_HTTP_ERROR', 'PAGE_TOO_LARGE', 'PAGE_UNREACHABLE']);
    expect(pageErrorFromFetch(err('HTTP_ERROR', 'x', 410), 1).message).toContain('410');
  });

  it('accepts HTML by type, or by its bytes when the type says nothing', () => {
    const html = Buffer.from('<!DOCTYPE html><html><head></head><body></body></html>');
    expect(isHtmlResponse('text/html', Buffer.from('{}'))).toBe(true);
    expect(isHtmlResponse('application/xhtml+xml', html)).toBe(true);
    expect(isHtmlResponse(undefined, html)).toBe(true);
    expect(isHtmlResponse('text/plain', html)).toBe(true);
    expect(isHtmlResponse('application/json', html)).toBe(false);
    expect(isHtmlResponse('image/png', html)).toBe(false);
    expect(isHtmlResponse(undefined, Buffer.from('%PDF-1.7'))).toBe(false);
  });

  it('decodes the page with the charset from the header, else the meta tag, else UTF-8', () => {
    const latin = Buffer.from('<html><body>caf\xe9</body></html>', 'latin1');
    expect(decodeHtml(latin, 'text/html; charset=ISO-8859-1')).toContain('café');
    const meta = Buffer.concat([Buffer.from('<meta charset="iso-8859-7"><p>'), Buffer.from([0xe1])]);
    expect(decodeHtml(meta, 'text/html')).toContain('α');
    const equiv = Buffer.concat([
      Buffer.from('<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-7">'),
      Buffer.from([0xe1]),
    ]);
    expect(decodeHtml(equiv, undefined)).toContain('α');
    expect(decodeHtml(Buffer.from('<p>é</p>'), 'text/html; charset=bogus')).toBe('<p>é</p>');
  });

  it('decodes data URLs', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const b64 = Buffer.from(bytes).toString('base64');
        expect(decodeDataUrl(`data:image/png;base64,${b64}`)).toEqual(Buffer.from(bytes));
      }),
    );
    expect(decodeDataUrl('data:image/svg+xml,%3Csvg%2F%3E')?.toString()).toBe('<svg/>');
    expect(decodeDataUrl('data:image/png;base64,@@@')).toBeUndefined();
    expect(decodeDataUrl('data:image/svg+xml,%E0%A4%A')).toBeUndefined();
    expect(decodeDataUrl('http://x/')).toBeUndefined();
  });
});

describe('planning and naming', () => {
  const html = `<html><body>${Array.from({ length: 12 }, (_, i) => `<img src="/p${i}.jpg" alt="photo ${i}">`).join('')}
    <img src="/t.gif" width="1" height="1"><img src="/sprite.png" class="sprite"><img src="/s.png" width="1" height="1"></body></html>`;
  const ranked = rankCandidates(discoverCandidates(html, 'https://shop.example/p').candidates, null);

  it('downloads the best ones, records some rejected ones, and counts the rest as truncated', () => {
    const rejected = ranked.filter((r) => r.rejection).length;
    expect(rejected).toBe(3);
    const plan = planDownloads(ranked, { maxDownloads: 5, maxRejectedRecorded: 1 });
    expect(plan.download.map((c) => c.key)).toEqual(
      ranked
        .filter((r) => !r.rejection)
        .slice(0, 5)
        .map((r) => r.candidate.key),
    );
    expect(plan.rejected).toHaveLength(1);
    expect(plan.truncated).toBe(12 - 5 + 3 - 1);
    expect(planDownloads(ranked, { maxDownloads: 100, maxRejectedRecorded: 100 }).truncated).toBe(0);
  });

  it('names committed files after the URL with the staged format', () => {
    const c = ranked.find((r) => r.candidate.key.endsWith('/p3.jpg'))!.candidate;
    expect(candidateFileName(c, 'PNG')).toBe('p3.png');
    expect(candidateFileName(c, undefined)).toBe('p3');
    const svg = discoverCandidates(
      '<header><a href="/"><svg viewBox="0 0 10 10"><rect width="10" height="10"/></svg></a></header>',
      'https://a.example/',
    ).candidates[0]!;
    expect(candidateFileName(svg, 'PNG')).toBe('inline-svg.png');
  });

  it('bounds concurrency and waits for running calls before failing', async () => {
    let running = 0;
    let peak = 0;
    const finished: number[] = [];
    const run = mapLimit([1, 2, 3, 4, 5, 6, 7, 8], 3, async (n) => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, n === 2 ? 5 : 20));
      running--;
      if (n === 2) throw new Error('boom');
      finished.push(n);
    });
    await expect(run).rejects.toThrow('boom');
    expect(peak).toBe(3);
    expect(running).toBe(0);
    expect(finished.sort()).toEqual([1, 3]); // started before the failure, then nothing new
  });

  it('formats the timeout and the staging folder', () => {
    expect(describeSeconds(600)).toBe('10 minutes');
    expect(describeSeconds(60)).toBe('1 minute');
    expect(describeSeconds(1)).toBe('1 second');
    expect(describeSeconds(90)).toBe('90 seconds');
    expect(stagingPrefix({ id: 'abc', created_at: '2025-03-04T05:06:07.000Z' })).toBe(
      'staging/extractions/20250304/abc/',
    );
  });
});

describe('runPipeline limits against the fixture shop', () => {
  let site: FixtureSite;
  beforeAll(async () => {
    site = await startFixtureSite();
  });
  afterAll(async () => site?.close());

  it('counts candidates dropped by the download and record caps in truncated', async () => {
    const puts: string[] = [];
    const deps = {
      fetcher: createFetcher({ allowPrivate: true }),
      storage: { put: async (key: string) => void puts.push(key) },
    };
    const input = {
      url: `${site.origin}/product`,
      purpose: null,
      stagingPrefix: 'staging/t/',
      signal: AbortSignal.timeout(20_000),
    };
    const full = await runPipeline(input, deps);
    expect(full.truncated).toBe(0);
    const small = await runPipeline(input, deps, {
      ...DEFAULT_PIPELINE_LIMITS,
      maxDownloads: 3,
      maxRejectedRecorded: 0,
    });
    expect(small.candidates.length).toBe(3);
    expect(small.truncated).toBe(full.candidates.length - 3);
    expect(small.candidates.map((c) => c.ranked.rank)).toEqual([1, 2, 3]);
    // Byte-identical downloads share one staged copy.
    const keys = full.candidates.map((c) => c.staged?.key).filter(Boolean);
    expect(new Set(keys).size).toBeLessThan(keys.length);
    expect(full.declaredImages).toContain(`${site.origin}/img/mug-main.jpg`);
  });

  it('stops at a checkpoint that throws, after the page fetch', async () => {
    const deps = { fetcher: createFetcher({ allowPrivate: true }), storage: { put: async () => {} } };
    const before = site.hits.length;
    await expect(
      runPipeline(
        {
          url: `${site.origin}/product`,
          purpose: null,
          stagingPrefix: 'staging/t/',
          signal: AbortSignal.timeout(20_000),
          checkpoint: async () => {
            throw new Error('gone');
          },
        },
        deps,
      ),
    ).rejects.toThrow('gone');
    expect(site.hits.slice(before).some((p) => p.startsWith('/img/'))).toBe(false);
  });
});
