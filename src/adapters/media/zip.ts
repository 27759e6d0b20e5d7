import fs from 'node:fs/promises';
import zlib from 'node:zlib';
import { MediaError } from './media-error.ts';

/**
 * Just enough ZIP reading to (a) tell a DOCX from another ZIP by its entry names when the sniffed
 * head does not reach them, and (b) bound decompression before mammoth (JSZip) inflates a DOCX in
 * memory: declared sizes are checked against a budget, then every entry is inflated once with
 * zlib's `maxOutputLength`, so a zip bomb whose headers lie fails instead of exhausting memory.
 * ZIP64 archives are refused (no document under the upload limit needs one).
 */
export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  encrypted: boolean;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

const EOCD_SIG = 0x06054b50;
const CDH_SIG = 0x02014b50;
const LFH_SIG = 0x04034b50;
const EOCD_MIN = 22;
const EOCD_MAX_SEARCH = EOCD_MIN + 0xffff;

const corrupt = (why: string) => new MediaError('CORRUPT', `The file is not a readable ZIP package (${why}).`);

/** Locates the central directory from the file's tail (`tail` starts at `tailOffset` in the file). */
export function findCentralDirectory(
  tail: Buffer,
  tailOffset: number,
): { offset: number; size: number; entries: number } {
  for (let i = tail.length - EOCD_MIN; i >= 0; i--) {
    if (tail.readUInt32LE(i) !== EOCD_SIG) continue;
    const entries = tail.readUInt16LE(i + 10);
    const size = tail.readUInt32LE(i + 12);
    const offset = tail.readUInt32LE(i + 16);
    if (entries === 0xffff || size === 0xffffffff || offset === 0xffffffff) {
      throw new MediaError('UNSUPPORTED', 'ZIP64 packages are not supported.');
    }
    if (offset + size > tailOffset + i) throw corrupt('central directory outside the file');
    return { offset, size, entries };
  }
  throw corrupt('no end of central directory');
}

/** Parses `count` central directory headers. */
export function parseCentralDirectory(cd: Buffer, count: number): ZipEntry[] {
  const entries: ZipEntry[] = [];
  let p = 0;
  for (let n = 0; n < count; n++) {
    if (p + 46 > cd.length || cd.readUInt32LE(p) !== CDH_SIG) throw corrupt('damaged central directory');
    const nameLen = cd.readUInt16LE(p + 28);
    const extraLen = cd.readUInt16LE(p + 30);
    const commentLen = cd.readUInt16LE(p + 32);
    if (p + 46 + nameLen > cd.length) throw corrupt('damaged central directory');
    entries.push({
      name: cd.toString('utf8', p + 46, p + 46 + nameLen),
      method: cd.readUInt16LE(p + 10),
      encrypted: (cd.readUInt16LE(p + 8) & 1) === 1,
      compressedSize: cd.readUInt32LE(p + 20),
      uncompressedSize: cd.readUInt32LE(p + 24),
      localHeaderOffset: cd.readUInt32LE(p + 42),
    });
    p += 46 + nameLen + extraLen + commentLen;
  }
  return entries;
}

/** Entries of the ZIP file at `filePath`, read from its central directory only. */
export async function readZipEntries(filePath: string): Promise<ZipEntry[]> {
  const fh = await fs.open(filePath, 'r');
  try {
    const { size } = await fh.stat();
    const tailLen = Math.min(size, EOCD_MAX_SEARCH);
    const tail = Buffer.alloc(tailLen);
    await fh.read(tail, 0, tailLen, size - tailLen);
    const dir = findCentralDirectory(tail, size - tailLen);
    const cd = Buffer.alloc(dir.size);
    await fh.read(cd, 0, dir.size, dir.offset);
    return parseCentralDirectory(cd, dir.entries);
  } finally {
    await fh.close();
  }
}

export interface ZipBudget {
  maxEntries: number;
  maxUncompressedBytes: number;
}

/** Pure: TOO_LARGE when the declared contents are over the budget. */
export function checkZipBudget(entries: readonly ZipEntry[], budget: ZipBudget): void {
  if (entries.length > budget.maxEntries) {
    throw new MediaError(
      'TOO_LARGE',
      `The package holds ${entries.length} files, over the limit of ${budget.maxEntries}.`,
    );
  }
  const total = entries.reduce((sum, e) => sum + e.uncompressedSize, 0);
  if (total > budget.maxUncompressedBytes) {
    throw new MediaError(
      'TOO_LARGE',
      `The package expands to ${total} bytes, over the limit of ${budget.maxUncompressedBytes} bytes.`,
    );
  }
}

/**
 * Inflates every entry of `zip` (the whole file) once, each bounded by its declared size: an entry
 * that expands past what its header says, or does not inflate, fails. Call after checkZipBudget.
 */
export function verifyZipEntries(zip: Buffer, entries: readonly ZipEntry[]): void {
  for (const e of entries) {
    if (e.encrypted) throw new MediaError('UNSUPPORTED', 'Password-protected documents are not supported.');
    const p = e.localHeaderOffset;
    if (p + 30 > zip.length || zip.readUInt32LE(p) !== LFH_SIG) throw corrupt(`damaged entry ${e.name}`);
    const start = p + 30 + zip.readUInt16LE(p + 26) + zip.readUInt16LE(p + 28);
    const data = zip.subarray(start, start + e.compressedSize);
    if (data.length !== e.compressedSize) throw corrupt(`truncated entry ${e.name}`);
    if (e.method === 0) continue;
    if (e.method !== 8) throw new MediaError('UNSUPPORTED', `ZIP compression method ${e.method} is not supported.`);
    let out: Buffer;
    try {
      // +1 so an entry that expands past its declared size is caught rather than cut.
      out = zlib.inflateRawSync(data, { maxOutputLength: e.uncompressedSize + 1 });
    } catch (err) {
      if (err instanceof RangeError) {
        throw new MediaError('TOO_LARGE', `The entry ${e.name} expands past its declared size.`);
      }
      throw corrupt(`entry ${e.name} does not decompress`);
    }
    if (out.length > e.uncompressedSize) {
      throw new MediaError('TOO_LARGE', `The entry ${e.name} expands past its declared size.`);
    }
    if (out.length < e.uncompressedSize) throw corrupt(`truncated entry ${e.name}`);
  }
}
