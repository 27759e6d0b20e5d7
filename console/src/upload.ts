/** Browser uploads: initiate → PUT the bytes with XMLHttpRequest (progress) → confirm → follow processing. */
import { type Asset, TYPES_BY_EXTENSION } from '../../sdk/src/index.ts';

export interface UploadSlot {
  uploadId: string;
  assetId: string;
  uploadUrl: string;
  uploadMethod?: string;
  uploadHeaders?: Record<string, string>;
}

/** The minimal XMLHttpRequest surface used (a fake in tests). */
export interface XhrLike {
  open(method: string, url: string): void;
  setRequestHeader(name: string, value: string): void;
  send(body: Blob | ArrayBuffer | Uint8Array | null): void;
  abort(): void;
  status: number;
  responseText: string;
  upload: { onprogress: ((e: { loaded: number; total: number; lengthComputable: boolean }) => void) | null };
  onload: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
}

export class UploadError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'UploadError';
  }
}

/**
 * PUTs `body` to a signed upload link, reporting progress 0..1. No cookies or CSRF token: the
 * link authorizes itself. Resolves on 2xx; rejects with UploadError otherwise or when aborted.
 */
export function putWithProgress(
  slot: Pick<UploadSlot, 'uploadUrl' | 'uploadMethod' | 'uploadHeaders'>,
  body: Blob | Uint8Array,
  o: { onProgress?: (fraction: number) => void; signal?: AbortSignal; xhr?: () => XhrLike } = {},
): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = o.xhr ? o.xhr() : (new XMLHttpRequest() as unknown as XhrLike);
    const size = body instanceof Uint8Array ? body.byteLength : body.size;
    xhr.open(slot.uploadMethod ?? 'PUT', slot.uploadUrl);
    for (const [k, v] of Object.entries(slot.uploadHeaders ?? {})) xhr.setRequestHeader(k, v);
    xhr.upload.onprogress = (e) => {
      const total = e.lengthComputable && e.total > 0 ? e.total : size;
      if (total > 0) o.onProgress?.(Math.min(1, e.loaded / total));
    };
    const onAbort = () => xhr.abort();
    o.signal?.addEventListener('abort', onAbort, { once: true });
    const settle = (err?: Error) => {
      o.signal?.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else {
        o.onProgress?.(1);
        resolve();
      }
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return settle();
      let message = `Upload failed (HTTP ${xhr.status})`;
      try {
        const m = (JSON.parse(xhr.responseText) as { error?: { message?: string } }).error?.message;
        if (m) message = m;
      } catch {
        // not JSON (an S3 XML error, say): keep the status
      }
      settle(new UploadError(message, xhr.status));
    };
    xhr.onerror = () => settle(new UploadError('Upload failed: the connection was lost', 0));
    xhr.onabort = () => settle(new UploadError('Upload canceled', 0));
    if (o.signal?.aborted) {
      settle(new UploadError('Upload canceled', 0));
      return;
    }
    xhr.send(body as Blob);
  });
}

export type UploadStage = 'queued' | 'uploading' | 'processing' | 'complete' | 'failed';
export interface UploadItem {
  key: string;
  name: string;
  size: number;
  stage: UploadStage;
  /** 0..1 of the bytes sent */
  progress: number;
  /** What went wrong: an API error, or the console's own sentence (shown through describeError). */
  error?: unknown;
  asset?: Asset;
}

/**
 * The formats the API accepts, by extension (the SDK's table, kept in step with
 * src/adapters/media/sniff.ts): the file input offers only these, and a dropped file of another
 * kind is refused before any upload.
 */
const ACCEPTED_TYPES = new Set([
  ...Object.values(TYPES_BY_EXTENSION),
  'image/jpg',
  'image/pjpeg',
  'image/x-png',
  'image/tif',
  'image/x-tiff',
  'application/x-font-ttf',
  'application/font-woff',
  'font/sfnt',
]);
const GENERIC = new Set(['', 'application/octet-stream', 'binary/octet-stream']);

/** The file input's `accept`: every extension and canonical type above. */
export const ACCEPT = [
  ...Object.keys(TYPES_BY_EXTENSION).map((e) => `.${e}`),
  ...new Set(Object.values(TYPES_BY_EXTENSION)),
].join(',');

const extensionOf = (name: string) => (name.includes('.') ? (name.split('.').pop()?.toLowerCase() ?? '') : '');

/** MIME type the API accepts for a file: the browser's, else from the extension. */
export function fileTypeOf(file: { name: string; type: string }): string {
  if (file.type) return file.type;
  return TYPES_BY_EXTENSION[extensionOf(file.name)] ?? 'application/octet-stream';
}

/** Why a file cannot be uploaded (a sentence for people), or undefined when the API takes it. */
export function uploadProblem(file: { name: string; type: string }): string | undefined {
  const ext = extensionOf(file.name);
  const type = file.type.toLowerCase();
  if (ext === 'svg' || type === 'image/svg+xml') {
    return 'SVG files cannot be uploaded: export the picture as a PNG and upload that.';
  }
  if (ACCEPTED_TYPES.has(type) || (GENERIC.has(type) && TYPES_BY_EXTENSION[ext])) return undefined;
  if (!type && TYPES_BY_EXTENSION[ext]) return undefined;
  return 'This kind of file cannot be uploaded: use JPEG, PNG, GIF or TIFF images, MP4 or MOV videos, PDF or Word documents, or TTF, OTF or WOFF fonts.';
}
