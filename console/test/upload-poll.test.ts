import { describe, expect, it } from 'vitest';
import { pollUntil } from '../src/poll.ts';
import { fileTypeOf, putWithProgress, UploadError, type XhrLike } from '../src/upload.ts';

class FakeXhr implements XhrLike {
  opened: [string, string] | undefined;
  headers: Record<string, string> = {};
  sent: unknown;
  status = 0;
  responseText = '';
  aborted = false;
  upload: XhrLike['upload'] = { onprogress: null };
  onload: (() => void) | null = null;
  onerror: (() => void) | null = null;
  onabort: (() => void) | null = null;
  open(method: string, url: string) {
    this.opened = [method, url];
  }
  setRequestHeader(k: string, v: string) {
    this.headers[k] = v;
  }
  send(body: unknown) {
    this.sent = body;
  }
  abort() {
    this.aborted = true;
    this.onabort?.();
  }
}

describe('putWithProgress', () => {
  const slot = {
    uploadUrl: 'http://s.test/blob?sig=1',
    uploadMethod: 'PUT',
    uploadHeaders: { 'Content-Type': 'image/png' },
  };

  it('PUTs the bytes with the link headers and reports progress to 1', async () => {
    const xhr = new FakeXhr();
    const seen: number[] = [];
    const body = new Uint8Array(100);
    const done = putWithProgress(slot, body, { xhr: () => xhr, onProgress: (p) => seen.push(p) });
    expect(xhr.opened).toEqual(['PUT', 'http://s.test/blob?sig=1']);
    expect(xhr.headers).toEqual({ 'Content-Type': 'image/png' });
    expect(xhr.sent).toBe(body);
    xhr.upload.onprogress?.({ loaded: 25, total: 100, lengthComputable: true });
    xhr.upload.onprogress?.({ loaded: 60, total: 0, lengthComputable: false });
    xhr.status = 200;
    xhr.onload?.();
    await done;
    expect(seen).toEqual([0.25, 0.6, 1]);
  });

  it('rejects with the API message on an error answer', async () => {
    const xhr = new FakeXhr();
    const done = putWithProgress(slot, new Uint8Array(1), { xhr: () => xhr });
    xhr.status = 403;
    xhr.responseText = JSON.stringify({ error: { code: 'LINK_EXPIRED', message: 'The upload link expired' } });
    xhr.onload?.();
    await expect(done).rejects.toMatchObject({ name: 'UploadError', status: 403, message: 'The upload link expired' });
  });

  it('rejects on a lost connection and on abort', async () => {
    const a = new FakeXhr();
    const lost = putWithProgress(slot, new Uint8Array(1), { xhr: () => a });
    a.onerror?.();
    await expect(lost).rejects.toBeInstanceOf(UploadError);
    const b = new FakeXhr();
    const ac = new AbortController();
    const canceled = putWithProgress(slot, new Uint8Array(1), { xhr: () => b, signal: ac.signal });
    ac.abort();
    await expect(canceled).rejects.toThrow(/canceled/);
    expect(b.aborted).toBe(true);
  });

  it('types files by extension when the browser does not know', () => {
    expect(fileTypeOf({ name: 'a.PNG', type: '' })).toBe('image/png');
    expect(fileTypeOf({ name: 'font.woff2', type: '' })).toBe('font/woff2');
    expect(fileTypeOf({ name: 'x.bin', type: '' })).toBe('application/octet-stream');
    expect(fileTypeOf({ name: 'x.jpg', type: 'image/jpeg' })).toBe('image/jpeg');
  });
});

describe('pollUntil', () => {
  it('reads at once, then long-polls with Prefer: wait until done', async () => {
    const states = ['pending', 'processing', 'completed'];
    const prefer: (string | undefined)[] = [];
    const updates: string[] = [];
    const slept: number[] = [];
    let t = 0;
    const out = await pollUntil({
      read: async ({ headers }) => {
        prefer.push(headers.prefer);
        t += 100;
        return { status: states.shift()! };
      },
      done: (v) => v.status === 'completed',
      onUpdate: (v) => updates.push(v.status),
      signal: new AbortController().signal,
      waitSeconds: 20,
      now: () => t,
      sleep: async (ms) => {
        slept.push(ms);
        t += ms;
      },
    });
    expect(out).toEqual({ status: 'completed' });
    expect(prefer).toEqual([undefined, 'wait=20', 'wait=20']);
    expect(updates).toEqual(['pending', 'processing', 'completed']);
    // Quick answers are spaced by the minimum interval (1 s minus the read time).
    expect(slept).toEqual([900, 900]);
  });

  it('caps the wait at 60 s and gives up after timeoutMs', async () => {
    let t = 0;
    const prefer: string[] = [];
    await expect(
      pollUntil({
        read: async ({ headers }) => {
          if (headers.prefer) prefer.push(headers.prefer);
          t += 30_000;
          return { status: 'processing' };
        },
        done: () => false,
        signal: new AbortController().signal,
        waitSeconds: 600,
        timeoutMs: 100_000,
        now: () => t,
        sleep: async () => {},
      }),
    ).rejects.toThrow(/Still running/);
    expect(prefer[0]).toBe('wait=60');
  });

  it('stops when aborted', async () => {
    const ac = new AbortController();
    const p = pollUntil({
      read: async () => ({ status: 'processing' }),
      done: () => false,
      signal: ac.signal,
      minIntervalMs: 10_000,
    });
    setTimeout(() => ac.abort(new Error('left the page')), 10);
    await expect(p).rejects.toThrow('left the page');
  });
});
