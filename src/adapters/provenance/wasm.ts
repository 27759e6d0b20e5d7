import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/**
 * c2pa-rs compiled to WebAssembly (@contentauth/c2pa-wasm: the Content Authenticity Initiative's
 * own build, no install script, no native binary), loaded lazily once per process: compiling its
 * 9 MB module takes a moment and only a process that signs or reads credentials needs it.
 *
 * Why a shim: the package targets browsers, and its Builder reads the source asset and
 * ingredients through `FileReaderSync`, which browsers only have in web workers and Node has not at
 * all. Node's Blob cannot be read synchronously, so the blobs given to the wasm are BytesBlobs that
 * keep their bytes, and the one global installed (only when absent, once) reads those bytes. It
 * reads nothing else: any other Blob is an error, not a silent empty read.
 */
type C2pa = typeof import('@contentauth/c2pa-wasm');

const BYTES = Symbol('atelier.c2pa.bytes');

export class BytesBlob extends Blob {
  readonly [BYTES]: Uint8Array;
  constructor(bytes: Uint8Array) {
    super([bytes as Uint8Array<ArrayBuffer>]);
    this[BYTES] = bytes;
  }
  override slice(start = 0, end = this[BYTES].length): BytesBlob {
    return new BytesBlob(this[BYTES].subarray(start, end));
  }
}

class BytesBlobReaderSync {
  readAsArrayBuffer(blob: Blob): ArrayBuffer {
    const bytes = (blob as Partial<BytesBlob>)[BYTES];
    if (!bytes) throw new TypeError("FileReaderSync here reads only the provenance adapter's BytesBlob");
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }
}

let loaded: C2pa | undefined;
let loading: Promise<C2pa> | undefined;

export function loadC2pa(): Promise<C2pa> {
  if (loaded) return Promise.resolve(loaded);
  loading ??= (async () => {
    const c2pa = await import('@contentauth/c2pa-wasm');
    const require = createRequire(import.meta.url);
    c2pa.initSync({ module: readFileSync(require.resolve('@contentauth/c2pa-wasm/c2pa.wasm')) });
    const g = globalThis as { FileReaderSync?: unknown };
    g.FileReaderSync ??= BytesBlobReaderSync;
    loaded = c2pa;
    return c2pa;
  })();
  return loading;
}
