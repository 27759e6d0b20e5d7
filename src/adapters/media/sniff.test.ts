import fs from 'node:fs';
import fc from 'fast-check';
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  buildDoc,
  buildDocx,
  buildFont,
  buildPdf,
  buildZip,
  docxEntries,
  makeVideo,
  toWoff,
  toWoff2,
} from '../../../test/fixtures/media/generate.ts';
import { failure, tempFiles } from './media.test-harness.ts';
import {
  checkDeclaredAgainstDetected,
  classifyDeclared,
  detectTextKind,
  FORMATS,
  requireFormat,
  SUPPORTED_FORMATS,
  sniffFile,
  sniffFormat,
} from './sniff.ts';

describe('classifyDeclared', () => {
  it.each([
    ['photo.jpg', 'image/jpeg', 'JPEG', 'image'],
    ['photo.JPEG', 'Image/JPEG; charset=binary', 'JPEG', 'image'],
    ['photo.jpg', 'image/jpg', 'JPEG', 'image'],
    ['logo.png', 'image/png', 'PNG', 'image'],
    ['anim.gif', 'image/gif', 'GIF', 'image'],
    ['scan.tif', 'image/tiff', 'TIFF', 'image'],
    ['clip.mp4', 'video/mp4', 'MP4', 'video'],
    ['clip.mov', 'video/quicktime', 'QuickTime', 'video'],
    ['clip.mov', 'video/mp4', 'MP4', 'video'], // same container family
    ['guide.pdf', 'application/pdf', 'PDF', 'document'],
    ['old.doc', 'application/msword', 'DOC', 'document'],
    ['new.docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', 'DOCX', 'document'],
    ['brand.ttf', 'font/ttf', 'TTF', 'font'],
    ['brand.otf', 'font/otf', 'OTF', 'font'],
    ['brand.otf', 'font/ttf', 'TTF', 'font'], // sfnt family
    ['brand.woff', 'application/font-woff', 'WOFF', 'font'],
    ['brand.woff2', 'font/woff2', 'WOFF2', 'font'],
    ['brand.woff2', 'application/octet-stream', 'WOFF2', 'font'], // generic type: the extension decides
    ['brand.ttf', '', 'TTF', 'font'],
    ['no-extension', 'image/png', 'PNG', 'image'],
    ['odd.name.heic-export', 'image/jpeg', 'JPEG', 'image'], // unknown extension: the type decides
  ])('accepts %s declared %s as %s (%s)', (fileName, mime, format, assetType) => {
    expect(classifyDeclared(fileName, mime)).toMatchObject({ ok: true, format, assetType });
  });

  it('returns the canonical MIME type for aliases', () => {
    expect(classifyDeclared('a.jpg', 'image/pjpeg')).toMatchObject({ ok: true, mimeType: 'image/jpeg' });
    expect(classifyDeclared('a.ttf', 'application/x-font-ttf')).toMatchObject({ ok: true, mimeType: 'font/ttf' });
  });

  it.each([
    ['logo.svg', 'image/svg+xml', 'svg_not_supported'],
    ['logo.svg', 'image/png', 'svg_not_supported'],
    ['logo.png', 'image/svg+xml', 'svg_not_supported'],
    ['logo.svgz', 'application/octet-stream', 'svg_not_supported'],
    ['photo.webp', 'image/webp', 'unsupported_file_type'],
    ['photo.heic', 'image/heic', 'unsupported_file_type'],
    ['page.html', 'text/html', 'unsupported_file_type'],
    ['sheet.xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'unsupported_file_type'],
    ['blob', 'application/octet-stream', 'unsupported_file_type'],
    ['font.ttc', 'font/collection', 'unsupported_file_type'],
    ['', '', 'unsupported_file_type'],
    ['photo.png', 'image/jpeg', 'file_type_extension_mismatch'],
    ['guide.pdf', 'application/msword', 'file_type_extension_mismatch'],
    ['clip.mp4', 'font/woff', 'file_type_extension_mismatch'],
  ])('rejects %s declared %j (%s)', (fileName, mime, reason) => {
    const r = classifyDeclared(fileName, mime);
    expect(r).toMatchObject({ ok: false, reason });
    if (!r.ok) expect(r.message.length).toBeGreaterThan(10);
  });

  it('never throws and never accepts SVG, whatever it is given', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (name, mime) => {
        const r = classifyDeclared(name, mime);
        if (r.ok) expect(FORMATS.map((f) => f.mime)).toContain(r.mimeType);
        expect(classifyDeclared(`${name}.svg`, mime).ok).toBe(false);
        expect(classifyDeclared(name, 'image/svg+xml').ok).toBe(false);
      }),
    );
  });

  it('accepts every format of the table by its own MIME type and first extension', () => {
    for (const f of FORMATS) {
      expect(classifyDeclared(`file.${f.extensions[0]}`, f.mime)).toMatchObject({ ok: true, format: f.format });
    }
  });
});

describe('detectTextKind', () => {
  it.each([
    ['<svg xmlns="http://www.w3.org/2000/svg"></svg>', 'SVG'],
    ['<?xml version="1.0"?>\n<!-- c -->\n<svg width="1"/>', 'SVG'],
    ['<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "x"><svg/>', 'SVG'],
    ['\ufeff  <SVG onload="alert(1)">', 'SVG'],
    ['<!doctype html><p>hi', 'HTML'],
    ['<html><script>alert(1)</script></html>', 'HTML'],
    ['  <script>alert(1)</script>', 'HTML'],
    ['<?xml version="1.0"?><note><to>x</to></note>', 'XML'],
    ['Just some words.\nAnother line.', 'TEXT'],
  ])('%j is %s', (text, kind) => {
    expect(detectTextKind(Buffer.from(text, 'utf8'))).toBe(kind);
  });

  it('reads UTF-16 with a byte-order mark', () => {
    const le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<svg/>', 'utf16le')]);
    const be = Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from('<svg/>', 'utf16le').swap16()]);
    expect(detectTextKind(le)).toBe('SVG');
    expect(detectTextKind(be)).toBe('SVG');
  });

  it('calls binary data binary', () => {
    expect(detectTextKind(Buffer.from([0x00, 0x01, 0x02, 0xff, 0x10]))).toBeUndefined();
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 64, maxLength: 512 }), (bytes) => {
        const withNul = Buffer.from(bytes);
        withNul[10] = 0;
        expect(detectTextKind(withNul)).toBeUndefined();
      }),
    );
  });
});

describe('sniffFormat and sniffFile on real bytes', () => {
  const tmp = tempFiles();
  const samples: Record<string, Buffer> = {};
  beforeAll(async () => {
    const img = sharp({ create: { width: 16, height: 16, channels: 3, background: '#336699' } });
    samples.JPEG = await img.clone().jpeg().toBuffer();
    samples.PNG = await img.clone().png().toBuffer();
    samples.GIF = await img.clone().gif().toBuffer();
    samples.TIFF = await img.clone().tiff().toBuffer();
    samples.WEBP = await img.clone().webp().toBuffer();
    samples.MP4 = fs.readFileSync(makeVideo(tmp.file('a.mp4'), { seconds: 0.2 }));
    samples.QuickTime = fs.readFileSync(makeVideo(tmp.file('a.mov'), { seconds: 0.2 }));
    samples.PDF = buildPdf(['hello']);
    samples.DOCX = buildDocx(['hello']);
    samples.DOC = buildDoc('hello');
    samples.TTF = buildFont({ family: 'Test', style: 'Regular' });
    samples.OTF = buildFont({ family: 'Test', style: 'Regular', otf: true });
    samples.WOFF = toWoff(samples.TTF);
    samples.WOFF2 = toWoff2(samples.TTF);
  });

  it.each(['JPEG', 'PNG', 'GIF', 'TIFF', 'MP4', 'QuickTime', 'PDF', 'DOCX', 'DOC', 'TTF', 'OTF', 'WOFF', 'WOFF2'])(
    'recognises %s',
    async (format) => {
      expect(await sniffFormat(samples[format]!)).toEqual({ format, detectedFormat: format });
      const file = tmp.write(`sample-${format}`, samples[format]!);
      expect((await sniffFile(file)).format).toBe(format);
    },
  );

  it('labels unsupported bytes without a format', async () => {
    expect(await sniffFormat(samples.WEBP!)).toEqual({ detectedFormat: 'WEBP' });
    expect(await sniffFormat(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'))).toEqual({
      detectedFormat: 'SVG',
    });
    expect(await sniffFormat(Buffer.from('<?xml version="1.0"?><svg/>'))).toEqual({ detectedFormat: 'SVG' });
    expect(await sniffFormat(Buffer.from('<!doctype html><title>x</title>'))).toEqual({ detectedFormat: 'HTML' });
    expect(await sniffFormat(Buffer.from('plain words'))).toEqual({ detectedFormat: 'TEXT' });
    expect(await sniffFormat(Buffer.alloc(0))).toEqual({ detectedFormat: 'EMPTY' });
    expect(await sniffFormat(Buffer.from([0x13, 0x37, 0x00, 0x42, 0x99]))).toEqual({ detectedFormat: 'UNKNOWN' });
    expect(await sniffFormat(buildZip([{ name: 'a.txt', data: 'x' }]))).toEqual({ detectedFormat: 'ZIP' });
  });

  it('tells other OLE documents from Word', async () => {
    const xls = Buffer.from(buildDoc('x'));
    const name = Buffer.from('WordDocument', 'utf16le');
    xls.set(Buffer.from('Workbook\0\0\0\0', 'utf16le'), xls.indexOf(name));
    expect(await sniffFormat(xls)).toEqual({ detectedFormat: 'XLS' });
  });

  it('finds word/document.xml through the central directory when the head does not reach it', async () => {
    const padding = { name: 'customXml/padding.bin', data: Buffer.alloc(100_000, 7), store: true };
    const docx = buildZip([padding, ...docxEntries(['late'])]);
    expect((await sniffFormat(docx.subarray(0, 64 * 1024))).detectedFormat).toBe('ZIP');
    const file = tmp.write('late.docx', docx);
    expect(await sniffFile(file)).toEqual({ format: 'DOCX', detectedFormat: 'DOCX' });
  });

  it('requires %PDF- at the start: a PDF behind other bytes is not a PDF', async () => {
    const hidden = Buffer.concat([Buffer.from('junk before the document\n'), samples.PDF!]);
    expect((await sniffFormat(hidden)).format).toBeUndefined();
    const behindPng = Buffer.concat([samples.PNG!, samples.PDF!]);
    expect(await sniffFormat(behindPng)).toEqual({ format: 'PNG', detectedFormat: 'PNG' });
  });

  it('goes by the leading signature: a JPEG with a ZIP appended is a JPEG', async () => {
    const polyglot = Buffer.concat([samples.JPEG!, buildZip([{ name: 'payload.js', data: 'alert(1)' }])]);
    expect(await sniffFormat(polyglot)).toEqual({ format: 'JPEG', detectedFormat: 'JPEG' });
  });

  it('requireFormat refuses a file of another asset type', async () => {
    const file = tmp.write('really-a-png.mp4', samples.PNG!);
    const err = await failure(requireFormat(file, 'video'));
    expect(err).toMatchObject({ code: 'UNSUPPORTED', message: 'The file is PNG, not a supported video format.' });
    expect(await requireFormat(file, 'image')).toBe('PNG');
  });
});

describe('checkDeclaredAgainstDetected', () => {
  it('accepts matching formats and returns the sniffed one', () => {
    expect(checkDeclaredAgainstDetected('image/png', { format: 'PNG', detectedFormat: 'PNG' })).toEqual({
      ok: true,
      format: 'PNG',
      assetType: 'image',
      mimeType: 'image/png',
    });
    expect(
      checkDeclaredAgainstDetected('video/mp4', { format: 'QuickTime', detectedFormat: 'QuickTime' }),
    ).toMatchObject({
      ok: true,
      format: 'QuickTime',
      mimeType: 'video/quicktime',
    });
    expect(checkDeclaredAgainstDetected('font/otf', { format: 'TTF', detectedFormat: 'TTF' })).toMatchObject({
      ok: true,
    });
  });

  it("gives the spec's details for a PNG declared as PDF (not retryable)", () => {
    const r = checkDeclaredAgainstDetected('application/pdf', { format: 'PNG', detectedFormat: 'PNG' });
    expect(r).toEqual({
      ok: false,
      message: "The file's contents are PNG, which does not match the declared type application/pdf.",
      details: {
        reason: 'unsupported_file_contents',
        declaredType: 'application/pdf',
        detectedFormat: 'PNG',
        retryable: false,
        supportedFormats: ['DOC', 'DOCX', 'GIF', 'JPEG', 'MP4', 'PDF', 'PNG', 'QuickTime', 'TIFF'],
      },
    });
  });

  it.each([
    ['image/png', 'SVG'],
    ['image/jpeg', 'HTML'],
    ['application/pdf', 'UNKNOWN'],
    ['image/webp', 'WEBP'],
    ['application/msword', 'XLS'],
  ])('rejects %s holding %s', (declared, detectedFormat) => {
    const r = checkDeclaredAgainstDetected(declared, { detectedFormat });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.details).toMatchObject({ detectedFormat, retryable: false, declaredType: declared });
  });

  it('rejects a supported format under an unsupported declared type', () => {
    expect(checkDeclaredAgainstDetected('image/webp', { format: 'PNG', detectedFormat: 'PNG' }).ok).toBe(false);
  });

  it('marks an empty upload as retryable', () => {
    const r = checkDeclaredAgainstDetected('image/png', { detectedFormat: 'EMPTY' });
    expect(r).toMatchObject({ ok: false, details: { retryable: true, detectedFormat: 'EMPTY' } });
  });

  it('keeps supportedFormats a copy of the spec list', () => {
    const r = checkDeclaredAgainstDetected('x/y', { detectedFormat: 'UNKNOWN' });
    if (r.ok) throw new Error('expected a rejection');
    r.details.supportedFormats.push('SVG');
    expect(SUPPORTED_FORMATS).not.toContain('SVG');
  });
});
