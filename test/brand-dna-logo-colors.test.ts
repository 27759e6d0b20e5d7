import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFetcher } from '../src/adapters/fetch/fetcher.ts';
import { createLocalTextAnalyzer } from '../src/engines/text/index.ts';
import { extractUrl } from '../src/modules/brand-dna/extractors.ts';
import { mergeFindings } from '../src/modules/brand-dna/merge.ts';

/**
 * Brand DNA from a URL whose logo is a picture file: the logo found by URL extraction's discovery
 * is fetched and its main colour becomes the primary, ahead of the page's theme colour.
 */
describe('Brand DNA: the colours of a page’s logo image', () => {
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    const logo = await sharp(
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="90"><rect width="300" height="90" fill="#ffffff"/><rect x="10" y="10" width="280" height="70" rx="12" fill="#c8102e"/></svg>',
      ),
    )
      .png()
      .toBuffer();
    server = http.createServer((req, res) => {
      if (req.url === '/logo.png') {
        res.writeHead(200, { 'content-type': 'image/png' }).end(logo);
        return;
      }
      if (req.url === '/broken-logo.png') {
        res.writeHead(200, { 'content-type': 'image/png' }).end('not a png');
        return;
      }
      const logoFile = req.url === '/broken' ? '/broken-logo.png' : '/logo.png';
      res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html><head><title>Acme Outfitters</title>
        <meta name="theme-color" content="#1e6fd9"></head><body><header>
        <a href="/"><img src="${logoFile}" alt="Acme Outfitters logo" width="300" height="90"></a></header>
        <main><h1>Gear for long trails</h1><p>We make tough, simple gear for people who walk far.</p></main></body></html>`);
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const ctx = () => ({
    fetcher: createFetcher({ allowPrivate: true }),
    storage: { getStream: async () => Promise.reject(new Error('no storage here')) },
    analyzer: createLocalTextAnalyzer(),
    signal: new AbortController().signal,
    note: async () => {},
  });

  it('takes the logo’s main colour as the primary', async () => {
    const { findings } = await extractUrl('s1', `${base}/`, ctx());
    expect(findings.logos.map((l) => l.url)).toEqual([`${base}/logo.png`]);
    const isRed = (hex: string) => {
      const n = Number.parseInt(hex.slice(1), 16);
      return n >> 16 > 180 && ((n >> 8) & 255) < 60 && (n & 255) < 80;
    };
    expect(
      findings.colors.some((c) => c.logo && isRed(c.hex)),
      JSON.stringify(findings.colors),
    ).toBe(true);
    const { dna } = mergeFindings([findings]);
    const primary = dna.visual.palette.find((p) => p.role === 'primary');
    expect(isRed(primary?.hex ?? '#000000'), primary?.hex).toBe(true);
  });

  it('adds nothing (and does not fail) when the logo file cannot be decoded', async () => {
    const { findings } = await extractUrl('s2', `${base}/broken`, ctx());
    expect(findings.colors.some((c) => c.logo)).toBe(false);
    const { dna } = mergeFindings([findings]);
    expect(dna.visual.palette.find((p) => p.role === 'primary')?.hex.toLowerCase()).toBe('#1e6fd9');
  });
});
