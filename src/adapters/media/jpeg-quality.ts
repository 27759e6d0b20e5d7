/**
 * JPEG quality estimate from the quantization tables (DQT) of the file header: encoders derived
 * from libjpeg scale the Annex K tables by a factor that is a function of the quality setting, so
 * the mean ratio of the file's luminance table to the standard one gives the quality back (within
 * a few points; encoders with custom tables get the quality their tables are equivalent to).
 */

/** Zig-zag scan index → natural (row-major) index of an 8×8 block. */
const ZIGZAG = [
  0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
  35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47,
  55, 62, 63,
];

/** ITU-T T.81 Annex K luminance table, natural order. */
const STD_LUMINANCE = [
  16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56, 14, 17, 22, 29, 51,
  87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92, 49, 64, 78, 87, 103, 121, 120, 101,
  72, 92, 95, 98, 112, 100, 103, 99,
];

/** Quantization tables by table id (0 is luminance in every common encoder), natural order. */
export function parseJpegQuantTables(bytes: Uint8Array): Map<number, number[]> {
  const tables = new Map<number, number[]>();
  if (bytes[0] !== 0xff || bytes[1] !== 0xd8) return tables;
  let i = 2;
  while (i + 4 <= bytes.length) {
    if (bytes[i] !== 0xff) break;
    const marker = bytes[i + 1]!;
    if (marker === 0xff) {
      i++; // fill byte
      continue;
    }
    if (marker === 0x01 || (marker >= 0xd0 && marker <= 0xd8)) {
      i += 2;
      continue;
    }
    if (marker === 0xda || marker === 0xd9) break; // tables come before the scan
    const length = (bytes[i + 2]! << 8) | bytes[i + 3]!;
    const end = i + 2 + length;
    if (length < 2 || end > bytes.length) break;
    if (marker === 0xdb) {
      let p = i + 4;
      while (p < end) {
        const precision = bytes[p]! >> 4;
        const id = bytes[p]! & 0x0f;
        const size = precision ? 2 : 1;
        if (p + 1 + 64 * size > end) break;
        const natural = new Array<number>(64);
        for (let k = 0; k < 64; k++) {
          const at = p + 1 + k * size;
          natural[ZIGZAG[k]!] = precision ? (bytes[at]! << 8) | bytes[at + 1]! : bytes[at]!;
        }
        tables.set(id, natural);
        p += 1 + 64 * size;
      }
    }
    i = end;
  }
  return tables;
}

/** Estimated libjpeg-equivalent quality (1..100) of a luminance table, natural order. */
export function qualityFromTable(table: readonly number[]): number {
  let sum = 0;
  for (let k = 0; k < 64; k++) sum += (table[k]! * 100) / STD_LUMINANCE[k]!;
  const scale = sum / 64;
  const quality = scale <= 100 ? (200 - scale) / 2 : 5000 / scale;
  return Math.max(1, Math.min(100, Math.round(quality)));
}

/** Quality of a JPEG from its header bytes, or undefined when it has no luminance table. */
export function estimateJpegQuality(headerBytes: Uint8Array): number | undefined {
  const table = parseJpegQuantTables(headerBytes).get(0);
  return table ? qualityFromTable(table) : undefined;
}
