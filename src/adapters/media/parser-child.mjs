// Child process that runs the pure-JavaScript parsers of untrusted documents and fonts (pdf.js,
// mammoth, word-extractor, fontkit). They run here, not in the job's process, because a crafted
// file can make them loop or allocate without end (word-extractor follows sector chains with no
// cycle check). isolate.ts starts it with a heap limit and kills it past its deadline; a process,
// not a worker thread, because V8 may abort the whole process when a worker's heap limit is hit.
// Plain JavaScript (not TypeScript) so Node can start it under any runner; the request and result
// shapes are declared in isolate.ts. One task per process: it answers once over IPC and exits.
import fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);

/** pdf.js: page count, document info, text of the first pages, optionally page 1 as PNG. */
async function pdf({ filePath, maxPages, maxChars, thumbnailSize }) {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const root = path.dirname(require.resolve('pdfjs-dist/package.json'));
  const data = new Uint8Array(await fs.readFile(filePath));
  const task = getDocument({
    data,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
    standardFontDataUrl: `${root}/standard_fonts/`,
    cMapUrl: `${root}/cmaps/`,
    cMapPacked: true,
    wasmUrl: `${root}/wasm/`,
  });
  const doc = await task.promise;
  try {
    const info = (await doc.getMetadata().catch(() => null))?.info ?? {};
    const pages = Math.min(maxPages, doc.numPages);
    const parts = [];
    let chars = 0;
    let firstPage;
    for (let n = 1; n <= pages && chars < maxChars; n++) {
      const page = await doc.getPage(n);
      if (n === 1) firstPage = page;
      const content = await page.getTextContent();
      let text = '';
      for (const item of content.items) {
        if (typeof item.str === 'string') text += item.str + (item.hasEOL ? '\n' : '');
      }
      parts.push(text);
      chars += text.length;
    }
    const firstPageSize = firstPage ? firstPage.getViewport({ scale: 1 }) : undefined;
    let thumbnail;
    let thumbnailError;
    if (thumbnailSize > 0 && firstPage) {
      try {
        thumbnail = await renderPage(doc, firstPage, thumbnailSize);
      } catch (err) {
        thumbnailError = String(err?.message ?? err);
      }
    }
    return {
      pageCount: doc.numPages,
      title: typeof info.Title === 'string' ? info.Title : undefined,
      author: typeof info.Author === 'string' ? info.Author : undefined,
      pageTexts: parts,
      firstPage: firstPageSize ? { width: firstPageSize.width, height: firstPageSize.height } : undefined,
      thumbnail,
      thumbnailError,
    };
  } finally {
    await task.destroy();
  }
}

/** Page rendered with its long edge `size` px, as PNG bytes. Needs @napi-rs/canvas (pdf.js loads it). */
async function renderPage(doc, page, size) {
  const unit = page.getViewport({ scale: 1 });
  const viewport = page.getViewport({ scale: size / Math.max(unit.width, unit.height) });
  const width = Math.max(1, Math.round(viewport.width));
  const height = Math.max(1, Math.round(viewport.height));
  const { canvas, context } = doc.canvasFactory.create(width, height);
  context.fillStyle = '#ffffff';
  context.fillRect(0, 0, width, height);
  await page.render({ canvasContext: context, canvas, viewport }).promise;
  return canvas.toBuffer('image/png');
}

/** mammoth: the raw text of a DOCX (the caller has bounded the ZIP's decompression first). */
async function docx({ filePath }) {
  const mammoth = require('mammoth');
  const result = await mammoth.extractRawText({ buffer: await fs.readFile(filePath) });
  return { text: result.value };
}

/** word-extractor: the body text of a Word 97-2003 document. */
async function doc({ filePath }) {
  const WordExtractor = require('word-extractor');
  const document = await new WordExtractor().extract(filePath);
  return { text: document.getBody() };
}

/** fontkit: names and style of a TTF/OTF/WOFF/WOFF2 font. */
async function font({ filePath }) {
  const fontkit = await import('fontkit');
  const f = fontkit.create(await fs.readFile(filePath));
  if (!f || Array.isArray(f.fonts)) return { collection: true };
  const safe = (read) => {
    try {
      const v = read();
      return v === null || v === undefined ? undefined : v;
    } catch {
      return undefined;
    }
  };
  const os2 = safe(() => f['OS/2']);
  return {
    collection: false,
    familyName: safe(() => f.getName('preferredFamily')) ?? safe(() => f.familyName),
    subfamilyName: safe(() => f.getName('preferredSubfamily')) ?? safe(() => f.subfamilyName),
    fullName: safe(() => f.fullName),
    postscriptName: safe(() => f.postscriptName),
    version: safe(() => f.version),
    numGlyphs: safe(() => f.numGlyphs),
    weightClass: safe(() => os2?.usWeightClass),
    italic: safe(() => (os2 ? Boolean(os2.fsSelection?.italic) : undefined)) ?? safe(() => f.italicAngle !== 0),
  };
}

const TASKS = { pdf, docx, doc, font };

process.once('message', async ({ task, input }) => {
  let reply;
  try {
    const run = TASKS[task];
    if (!run) throw new Error(`unknown task ${task}`);
    reply = { ok: true, result: await run(input) };
  } catch (err) {
    reply = { ok: false, error: { name: err?.name ?? 'Error', message: String(err?.message ?? err) } };
  }
  process.send(reply, () => process.exit(0));
});
