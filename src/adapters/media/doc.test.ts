import { describe, expect, it } from 'vitest';
import { buildDoc, buildDocx, buildZip, docxEntries } from '../../../test/fixtures/media/generate.ts';
import { extractWordText, mediaErrorFromWord } from './doc.ts';
import { ParserFailure } from './isolate.ts';
import { failure, tempFiles } from './media.test-harness.ts';

const { write } = tempFiles();

describe('DOCX', () => {
  it('extracts the paragraphs', async () => {
    const file = write('guide.docx', buildDocx(['Brand voice', 'Warm, direct & <honest>.']));
    expect(await extractWordText(file)).toEqual({
      format: 'DOCX',
      text: 'Brand voice\n\nWarm, direct & <honest>.',
      truncated: false,
      wordCount: 6,
    });
  });

  it('bounds the text', async () => {
    const file = write('long.docx', buildDocx(['word '.repeat(1000)]));
    const r = await extractWordText(file, { maxChars: 50 });
    expect(r.truncated).toBe(true);
    expect(r.text.length).toBeLessThanOrEqual(50);
  });

  it('refuses a zip bomb before mammoth inflates it', async () => {
    const entries = docxEntries(['x']);
    const liar = { name: 'word/styles.xml', data: Buffer.alloc(20_000_000, 0x20), declaredSize: 10 };
    const err = await failure(extractWordText(write('bomb.docx', buildZip([...entries, liar]))));
    expect(err).toMatchObject({
      code: 'TOO_LARGE',
      message: 'The entry word/styles.xml expands past its declared size.',
    });
    const honest = buildZip([...entries, { name: 'word/footnotes.xml', data: Buffer.alloc(2_000_000, 0x20) }]);
    const big = await failure(extractWordText(write('big.docx', honest), { maxUncompressedBytes: 1_000_000 }));
    expect(big.code).toBe('TOO_LARGE');
  });

  it('does not count or inflate images, which text extraction never reads', async () => {
    const photo = { name: 'word/media/image1.png', data: Buffer.alloc(2_000_000), declaredSize: 10 };
    const r = await extractWordText(write('photo.docx', buildZip([...docxEntries(['Caption']), photo])), {
      maxUncompressedBytes: 1_000_000,
    });
    expect(r.text).toBe('Caption');
  });

  it('fails a package whose document part is not XML as CORRUPT', async () => {
    const broken = buildZip([...docxEntries(['x']).slice(0, 2), { name: 'word/document.xml', data: 'not <xml' }]);
    const err = await failure(extractWordText(write('broken.docx', broken)));
    expect(err.code).toBe('CORRUPT');
    expect(err.message).toBe('The DOCX document is damaged and its text cannot be read.');
  });

  it('refuses a ZIP that is not a Word document', async () => {
    expect((await failure(extractWordText(write('a.docx', buildZip([{ name: 'a.txt', data: 'x' }]))))).code).toBe(
      'UNSUPPORTED',
    );
  });
});

describe('DOC (Word 97-2003)', () => {
  it('extracts the body text', async () => {
    const file = write('old.doc', buildDoc('Legacy brand book: bold, bright, kind.'));
    expect(await extractWordText(file)).toEqual({
      format: 'DOC',
      text: 'Legacy brand book: bold, bright, kind.',
      truncated: false,
      wordCount: 6,
    });
  });

  it('stops a crafted file that sends the reader round a sector loop, by memory or by time', async () => {
    const file = write('loop.doc', buildDoc('x', { cyclicFat: true }));
    const byMemory = await failure(extractWordText(file, { timeoutMs: 20_000, maxHeapMb: 48 }));
    expect(byMemory).toMatchObject({
      code: 'TOO_LARGE',
      message: 'The document needs more memory to read than allowed.',
    });
    const byTime = await failure(extractWordText(file, { timeoutMs: 300, maxHeapMb: 4096 }));
    expect(byTime).toMatchObject({
      code: 'TIMEOUT',
      message: 'Reading the document took longer than 300 ms and was stopped.',
    });
  });

  it('fails an OLE file without a Word stream as CORRUPT', async () => {
    const bytes = buildDoc('x');
    bytes.writeUInt16LE(0x1234, 512 * 3); // the WordDocument stream's magic number
    expect((await failure(extractWordText(write('notword.doc', bytes)))).code).toBe('CORRUPT');
  });

  it('refuses other formats, oversize files and slow reads', async () => {
    expect((await failure(extractWordText(write('fake.doc', 'hello')))).code).toBe('UNSUPPORTED');
    const file = write('ok.doc', buildDoc('fine'));
    expect((await failure(extractWordText(file, { maxBytes: 10 }))).code).toBe('TOO_LARGE');
    expect((await failure(extractWordText(file, { timeoutMs: 1 }))).code).toBe('TIMEOUT');
  });

  it('maps parser failures to CORRUPT and lets other errors through', () => {
    expect(mediaErrorFromWord(new ParserFailure('Error', 'Invalid magic'), 'DOC')).toMatchObject({ code: 'CORRUPT' });
    const other = new Error('EMFILE');
    expect(mediaErrorFromWord(other, 'DOC')).toBe(other);
  });
});
