import { crc32 } from 'node:zlib';

/**
 * Puts an XMP packet into a PNG (an `iTXt` chunk keyed `XML:com.adobe.xmp` after IHDR) or a JPEG
 * (an APP1 segment after SOI and APP0) without decoding the pixels: re-encoding a 1 MP PNG with
 * sharp's withXmp costs more than signing it. A file that already has XMP keeps its own and gets
 * ours too (readers take the first); generated files have none. Done before C2PA signing, so the
 * manifest's hash covers it.
 */
export function embedXmp(bytes: Buffer, format: 'image/png' | 'image/jpeg', xmp: string): Buffer {
  return format === 'image/png' ? pngWithXmp(bytes, xmp) : jpegWithXmp(bytes, xmp);
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function pngWithXmp(png: Buffer, xmp: string): Buffer {
  if (png.length < 33 || !png.subarray(0, 8).equals(PNG_SIGNATURE) || png.toString('latin1', 12, 16) !== 'IHDR') {
    throw new Error('not a PNG');
  }
  const ihdrEnd = 8 + 12 + png.readUInt32BE(8);
  // keyword \0, compression flag 0, method 0, language tag "" \0, translated keyword "" \0, text
  const data = Buffer.concat([Buffer.from('XML:com.adobe.xmp\0\0\0\0\0', 'latin1'), Buffer.from(xmp, 'utf8')]);
  const typeAndData = Buffer.concat([Buffer.from('iTXt', 'latin1'), data]);
  const chunk = Buffer.alloc(12 + data.length);
  chunk.writeUInt32BE(data.length, 0);
  typeAndData.copy(chunk, 4);
  chunk.writeUInt32BE(crc32(typeAndData), 8 + data.length);
  return Buffer.concat([png.subarray(0, ihdrEnd), chunk, png.subarray(ihdrEnd)]);
}

const XMP_NS = Buffer.from('http://ns.adobe.com/xap/1.0/\0', 'latin1');

function jpegWithXmp(jpeg: Buffer, xmp: string): Buffer {
  if (jpeg.length < 4 || jpeg[0] !== 0xff || jpeg[1] !== 0xd8) throw new Error('not a JPEG');
  const payload = Buffer.concat([XMP_NS, Buffer.from(xmp, 'utf8')]);
  if (payload.length + 2 > 0xffff) throw new Error('XMP packet too large for one APP1 segment');
  const segment = Buffer.alloc(4 + payload.length);
  segment.writeUInt16BE(0xffe1, 0);
  segment.writeUInt16BE(payload.length + 2, 2);
  payload.copy(segment, 4);
  // After SOI and a JFIF APP0 when there is one (JFIF wants to be first).
  let at = 2;
  if (jpeg[2] === 0xff && jpeg[3] === 0xe0) at = 4 + jpeg.readUInt16BE(4);
  return Buffer.concat([jpeg.subarray(0, at), segment, jpeg.subarray(at)]);
}
