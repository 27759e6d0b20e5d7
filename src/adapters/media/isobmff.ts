import { MediaError } from './media-error.ts';

/**
 * Top-level box walk of an ISO base media file (MP4, QuickTime). ffprobe happily reports the
 * duration of a file whose media data was cut off, as long as the `moov` box came first; the box
 * sizes show the cut: a box that reaches past the end of the file means the file is truncated.
 */
export type ReadAt = (offset: number, length: number) => Promise<Buffer>;

const MAX_BOXES = 10_000;

export async function checkTopLevelBoxes(read: ReadAt, fileSize: number): Promise<string[]> {
  const types: string[] = [];
  let offset = 0;
  while (offset < fileSize) {
    if (types.length >= MAX_BOXES) throw new MediaError('CORRUPT', 'The video has too many top-level boxes.');
    if (fileSize - offset < 8) break; // trailing padding shorter than a box header
    const header = await read(offset, 16);
    const size32 = header.readUInt32BE(0);
    const type = header.toString('latin1', 4, 8);
    let size: number;
    if (size32 === 1) {
      if (header.length < 16) throw new MediaError('CORRUPT', 'The video file is incomplete (truncated).');
      size = Number(header.readBigUInt64BE(8));
    } else if (size32 === 0) {
      size = fileSize - offset; // runs to the end of the file
    } else {
      size = size32;
    }
    if (size < 8) throw new MediaError('CORRUPT', `The video's ${JSON.stringify(type)} box is damaged.`);
    if (offset + size > fileSize) {
      throw new MediaError('CORRUPT', 'The video file is incomplete (truncated); upload it again.', {
        box: type,
        boxEnd: offset + size,
        fileSize,
      });
    }
    types.push(type);
    offset += size;
  }
  if (!types.includes('moov')) throw new MediaError('CORRUPT', 'The video has no movie header (moov box).');
  return types;
}
