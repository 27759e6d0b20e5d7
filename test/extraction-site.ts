import http from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';

/**
 * A tiny shop served on 127.0.0.1 for the URL extraction tests: a product page that uses every
 * discovery source (img, srcset, lazy attributes, picture/source, og:image, JSON-LD, icons, a CSS
 * background from a linked style sheet, a video poster, an inline SVG logo) plus things that must
 * be rejected (a tiny image, a tracking pixel, exact and near duplicates, undecodable bytes, an
 * unsupported format, a missing file). Every picture has its own size, so a test can tell
 * candidates apart by `width`x`height`.
 */

/** Sizes of the pictures the product page shows (the inline SVG logo renders at 1024x341). */
export const SIZES = {
  main: [1200, 1190],
  side: [1100, 1000],
  top: [900, 800], // served as WebP, committed as JPEG
  living: [1600, 900],
  banner: [1800, 600], // CSS background from /site.css
  poster: [1280, 720],
  favicon: [96, 96],
  tiny: [20, 20],
  thumb: [300, 298], // a smaller copy of main: a near duplicate
  logo: [1024, 341],
} as const;

export interface FixtureSite {
  origin: string;
  port: number;
  /** Paths requested so far, in order. */
  hits: string[];
  close(): Promise<void>;
}

/** A picture with coarse random structure, so different seeds have different perceptual hashes. */
async function pattern(seed: number, width: number, height: number) {
  let s = seed * 2654435761;
  const rand = () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s & 0xff;
  };
  const grid = Buffer.alloc(6 * 6 * 3);
  for (let i = 0; i < grid.length; i++) grid[i] = rand();
  return sharp(grid, { raw: { width: 6, height: 6, channels: 3 } }).resize(width, height, {
    fit: 'fill',
    kernel: 'cubic',
  });
}

/** A 24-bit BMP (sharp cannot write one, and cannot read one either: an unsupported format). */
function bmp(width: number, height: number): Buffer {
  const row = Math.ceil((width * 3) / 4) * 4;
  const size = 54 + row * height;
  const b = Buffer.alloc(size);
  b.write('BM', 0, 'ascii');
  b.writeUInt32LE(size, 2);
  b.writeUInt32LE(54, 10);
  b.writeUInt32LE(40, 14);
  b.writeInt32LE(width, 18);
  b.writeInt32LE(height, 22);
  b.writeUInt16LE(1, 26);
  b.writeUInt16LE(24, 28);
  b.writeUInt32LE(row * height, 34);
  for (let i = 54; i < size; i++) b[i] = (i * 7) & 0xff;
  return b;
}

const LOGO_SVG =
  '<svg viewBox="0 0 300 100" width="300" height="100"><rect x="0" y="0" width="300" height="100" rx="12" fill="#1f3a93"/>' +
  '<circle cx="50" cy="50" r="30" fill="#f5b700"/><rect x="100" y="35" width="170" height="30" fill="#ffffff"/></svg>';

function productPage(origin: string): string {
  return `<!doctype html>
<html><head>
<title>Blue Ceramic Mug | Acme Home</title>
<meta property="og:title" content="Blue Ceramic Mug">
<meta property="og:image" content="${origin}/img/mug-main.jpg">
<link rel="icon" href="/favicon.png" sizes="96x96">
<link rel="stylesheet" href="/css/site.css">
<script type="application/ld+json">{"@context":"https://schema.org","@type":"Product","name":"Blue Ceramic Mug",
 "image":["${origin}/img/mug-main.jpg","${origin}/img/mug-side.jpg"]}</script>
</head><body>
<header class="site-header"><a href="/" class="site-logo">${LOGO_SVG}</a><nav><a href="/shop">Shop</a></nav></header>
<main>
<h1>Blue Ceramic Mug</h1>
<div class="product-gallery">
  <img class="main-image" src="/img/mug-main-600.jpg" srcset="/img/mug-main-600.jpg 600w, /img/mug-main.jpg 1200w" alt="Blue Ceramic Mug">
  <img class="lazyload" src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" data-src="/img/mug-side.jpg" alt="Blue Ceramic Mug, side view">
  <picture><source srcset="/img/mug-top.webp" type="image/webp"><img src="/img/mug-top-fallback.jpg" alt="Blue Ceramic Mug seen from above"></picture>
  <img src="/img/mug-thumb.jpg" alt="Blue Ceramic Mug thumbnail view">
  <img src="/img/mug-copy.jpg" alt="Blue Ceramic Mug again">
</div>
<p>Glazed stoneware, 350 ml.</p>
<section class="inspiration">
  <h2>Lifestyle inspiration</h2>
  <img src="/img/living-room.jpg" width="1600" height="900" alt="Lifestyle scene: a woman drinking from the Blue Ceramic Mug in a cosy living room">
</section>
<div class="promo-banner"></div>
<video poster="/img/video-poster.jpg" src="/media/mug.mp4"></video>
<img src="/img/tiny.png" alt="Blue Ceramic Mug detail">
<img src="/img/broken.jpg" alt="Blue Ceramic Mug broken file">
<img src="/img/legacy.bmp" alt="Blue Ceramic Mug legacy photo">
<img src="/img/gone.jpg" alt="Blue Ceramic Mug missing">
<img src="/pixel.gif?id=42" width="1" height="1" alt="">
</main>
<footer><p>Acme Home</p></footer>
</body></html>`;
}

const SITE_CSS = '.promo-banner { height: 300px; background-image: url("../img/banner-bg.jpg"); }\n.x { color: red }';

/** Starts the shop. `extraRoutes` answer first (a test's own pages). */
export async function startFixtureSite(
  extraRoutes: (req: http.IncomingMessage, res: http.ServerResponse, origin: string) => boolean = () => false,
): Promise<FixtureSite> {
  const main = await (await pattern(1, ...SIZES.main)).jpeg({ quality: 88 }).toBuffer();
  const files: Record<string, { type: string; body: Buffer }> = {
    '/img/mug-main.jpg': { type: 'image/jpeg', body: main },
    '/img/mug-main-600.jpg': {
      type: 'image/jpeg',
      body: await sharp(main).resize(600).jpeg().toBuffer(),
    },
    '/img/mug-copy.jpg': { type: 'image/jpeg', body: main },
    '/img/mug-thumb.jpg': {
      type: 'image/jpeg',
      body: await sharp(main)
        .resize(...SIZES.thumb, { fit: 'fill' })
        .jpeg({ quality: 70 })
        .toBuffer(),
    },
    '/img/mug-side.jpg': { type: 'image/jpeg', body: await (await pattern(2, ...SIZES.side)).jpeg().toBuffer() },
    '/img/mug-top.webp': { type: 'image/webp', body: await (await pattern(3, ...SIZES.top)).webp().toBuffer() },
    '/img/mug-top-fallback.jpg': { type: 'image/jpeg', body: await (await pattern(3, 450, 400)).jpeg().toBuffer() },
    '/img/living-room.jpg': { type: 'image/jpeg', body: await (await pattern(4, ...SIZES.living)).jpeg().toBuffer() },
    '/img/banner-bg.jpg': { type: 'image/jpeg', body: await (await pattern(5, ...SIZES.banner)).jpeg().toBuffer() },
    '/img/video-poster.jpg': { type: 'image/jpeg', body: await (await pattern(6, ...SIZES.poster)).jpeg().toBuffer() },
    '/favicon.png': { type: 'image/png', body: await (await pattern(7, ...SIZES.favicon)).png().toBuffer() },
    '/img/tiny.png': { type: 'image/png', body: await (await pattern(8, ...SIZES.tiny)).png().toBuffer() },
    '/img/broken.jpg': { type: 'image/jpeg', body: main.subarray(0, 600) },
    '/img/legacy.bmp': { type: 'image/bmp', body: bmp(640, 480) },
    '/pixel.gif': {
      type: 'image/gif',
      body: Buffer.from('R0lGODlhAQABAIAAAP///wAAACH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64'),
    },
    '/css/site.css': { type: 'text/css', body: Buffer.from(SITE_CSS) },
  };

  const hits: string[] = [];
  let origin = '';
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', origin);
    hits.push(url.pathname);
    if (extraRoutes(req, res, origin)) return;
    if (url.pathname === '/product') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      return void res.end(productPage(origin));
    }
    const file = files[url.pathname];
    if (!file) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return void res.end('not found');
    }
    res.writeHead(200, { 'content-type': file.type, 'content-length': file.body.length });
    res.end(file.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  return {
    origin,
    port,
    hits,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
