import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { buildPdf } from '../../../test/fixtures/media/generate.ts';
import { ParserFailure } from './isolate.ts';
import { failure, tempFiles } from './media.test-harness.ts';
import { analyzePdf, extractPdfText, mediaErrorFromPdf } from './pdf.ts';

const { write } = tempFiles();

describe('PDF', () => {
  const pages = [
    'Atelier brand guide (2025)',
    'Our voice is warm and direct',
    'Colours: navy and coral',
    'Page four',
    'Page five',
  ];
  const guide = write('guide.pdf', buildPdf(pages));

  it('counts pages, reads the first pages and renders a first-page thumbnail', async () => {
    const a = await analyzePdf(guide);
    expect(a).toMatchObject({ pageCount: 5, pagesRead: 3, truncated: false, firstPage: { width: 612, height: 792 } });
    expect(a.text).toBe('Atelier brand guide (2025)\n\nOur voice is warm and direct\n\nColours: navy and coral');
    expect(a.wordCount).toBe(14);
    expect(a.thumbnailSkipped).toBeUndefined();
    expect(a.thumbnail).toMatchObject({ format: 'webp', width: 396, height: 512 });
    // The rendered page is mostly white paper with dark text near the top.
    const { data, info } = await sharp(a.thumbnail!.buffer!).greyscale().raw().toBuffer({ resolveWithObject: true });
    const dark = data.filter((v) => v < 128).length / (info.width * info.height);
    expect(dark).toBeGreaterThan(0.001);
    expect(dark).toBeLessThan(0.1);
  });

  it('extractPdfText reads up to maxPages and maxChars', async () => {
    expect(await extractPdfText(guide)).toMatchObject({ pageCount: 5, pagesRead: 5 });
    const two = await extractPdfText(guide, { maxPages: 2 });
    expect(two.text).toBe('Atelier brand guide (2025)\n\nOur voice is warm and direct');
    const short = await extractPdfText(guide, { maxChars: 20 });
    expect(short).toMatchObject({ truncated: true, text: 'Atelier brand guide' });
  });

  it('skips the thumbnail when told to', async () => {
    const a = await analyzePdf(guide, { thumbnail: false });
    expect(a.thumbnail).toBeUndefined();
    expect(a.thumbnailSkipped).toBeUndefined();
  });

  it('fails a damaged PDF as CORRUPT', async () => {
    const bytes = buildPdf(pages);
    const file = write('damaged.pdf', Buffer.concat([bytes.subarray(0, 40), Buffer.alloc(200, 0x20)]));
    const err = await failure(analyzePdf(file));
    expect(err.code).toBe('CORRUPT');
    expect(err.message).toBe('The PDF is damaged or not a PDF and cannot be read.');
  });

  it('refuses non-PDF bytes, and limits size and time', async () => {
    expect((await failure(analyzePdf(write('fake.pdf', '<html><script>x</script></html>')))).code).toBe('UNSUPPORTED');
    expect((await failure(analyzePdf(guide, { maxBytes: 100 }))).code).toBe('TOO_LARGE');
    expect((await failure(analyzePdf(guide, { timeoutMs: 1 }))).code).toBe('TIMEOUT');
  });

  it('maps password protection to UNSUPPORTED', () => {
    expect(mediaErrorFromPdf(new ParserFailure('PasswordException', 'No password given'))).toMatchObject({
      code: 'UNSUPPORTED',
    });
    expect(mediaErrorFromPdf(new ParserFailure('InvalidPDFException', 'Invalid PDF structure.'))).toMatchObject({
      code: 'CORRUPT',
    });
    const other = new Error('EMFILE');
    expect(mediaErrorFromPdf(other)).toBe(other);
  });
});
