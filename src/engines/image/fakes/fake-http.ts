import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { createFetcher, type Fetcher } from '../../../adapters/fetch/fetcher.ts';

/**
 * Test plumbing shared by the fake image providers: a node:http server on 127.0.0.1 that records
 * every request (JSON and multipart bodies parsed), real PNG bytes made with sharp, and a Fetcher
 * allowed to reach exactly that server. Nothing here is used outside tests.
 */

export interface FakeRequest {
  method: string;
  /** Path and query as received. */
  path: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
  raw: Buffer;
  // biome-ignore lint/suspicious/noExplicitAny: request JSON is read field by field in tests
  json?: any;
  form?: FormData;
}

export type FakeHandler = (req: FakeRequest, res: http.ServerResponse) => unknown;

export interface FakeServer {
  port: number;
  origin: string;
  requests: FakeRequest[];
  /** A Fetcher that may reach this server (and nothing else private). */
  fetcher: Fetcher;
  close(): Promise<void>;
}

export async function startFakeServer(handler: FakeHandler): Promise<FakeServer> {
  const requests: FakeRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const raw = Buffer.concat(chunks);
        const url = new URL(req.url ?? '/', 'http://fake.invalid');
        const r: FakeRequest = { method: req.method ?? 'GET', path: req.url ?? '/', url, headers: req.headers, raw };
        const type = req.headers['content-type'] ?? '';
        try {
          if (type.startsWith('application/json')) r.json = JSON.parse(raw.toString('utf8'));
          else if (type.startsWith('multipart/form-data')) {
            r.form = await new Response(new Uint8Array(raw), { headers: { 'content-type': type } }).formData();
          }
        } catch {
          // Left unparsed: the handler sees `raw`.
        }
        requests.push(r);
        await handler(r, res);
      })().catch((err: unknown) => {
        if (!res.headersSent) res.writeHead(599, { 'content-type': 'text/plain' });
        res.end(String(err));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    requests,
    fetcher: createFetcher({ policy: (addr, p) => addr === '127.0.0.1' && p === port }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(
  res: http.ServerResponse,
  status: number,
  body: unknown,
  headers: http.OutgoingHttpHeaders = {},
) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}

export function sendBytes(res: http.ServerResponse, body: Buffer | string, type = 'image/png') {
  res.writeHead(200, { 'content-type': type }).end(body);
}

/** Answers after `ms` (unless the client went away first). */
export function later(res: http.ServerResponse, ms: number, fn: () => void) {
  const timer = setTimeout(fn, ms);
  res.on('close', () => clearTimeout(timer));
}

/** A real PNG: a two-colour gradient-free test card (colour from the size, so outputs differ). */
export async function makePng(width: number, height: number, rgb = { r: 40, g: 120, b: 200 }): Promise<Buffer> {
  const marker = await sharp({
    create: {
      width: Math.max(1, Math.round(width / 4)),
      height: Math.max(1, Math.round(height / 4)),
      channels: 3,
      background: { r: 250, g: 250, b: 250 },
    },
  })
    .png()
    .toBuffer();
  return sharp({ create: { width, height, channels: 3, background: rgb } })
    .composite([{ input: marker, gravity: 'centre' }])
    .png()
    .toBuffer();
}

/** A file's bytes from a parsed multipart form (undefined when the field is not a file). */
export async function formFile(form: FormData | undefined, name: string): Promise<Buffer[]> {
  const out: Buffer[] = [];
  for (const v of form?.getAll(name) ?? []) if (typeof v !== 'string') out.push(Buffer.from(await v.arrayBuffer()));
  return out;
}

/** Bytes that are not an image (but are served as one). */
export const NOT_AN_IMAGE = Buffer.from('<html><body>Sorry, this is not a picture</body></html>');
