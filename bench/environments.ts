/**
 * Local environment engine benchmark: renders a dozen backdrops (every surface, warm and cool,
 * bright and moody light, brand palettes, several aspect ratios), against a baseline measured in
 * the same run: sharp creating and encoding a flat PNG of the same size. Prints JSON and writes a
 * labelled contact sheet to bench/results/environments.png (git-ignored) to look at.
 *
 * Exits 1 when the mean 1024-px render takes over BENCH_ENV_MAX_MS (default 1000 ms).
 *
 *   npm run bench -- environments
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp, { type OverlayOptions } from 'sharp';
import { createLocalEnvironmentEngine } from '../src/engines/environment/local/local-environment-engine.ts';
import { type AspectRatio, outputSize } from '../src/engines/image/scene-engine.ts';

const MAX_MS = Number(process.env.BENCH_ENV_MAX_MS ?? 1000);
const LONG_SIDE = Number(process.env.BENCH_ENV_SIDE ?? 1024);
const TILE = 360;

const CASES: { prompt: string; aspect: AspectRatio; palette: string[] }[] = [
  { prompt: 'white marble kitchen counter, soft morning daylight', aspect: '1:1', palette: [] },
  { prompt: 'walnut table against a sage plaster wall, golden hour from the left', aspect: '4:3', palette: [] },
  { prompt: 'seamless studio paper sweep', aspect: '3:4', palette: ['#c8553d', '#2d3047'] },
  { prompt: 'pastel pink paper backdrop, bright and airy', aspect: '1:1', palette: [] },
  { prompt: 'crumpled natural linen, sunlight through a window', aspect: '16:9', palette: [] },
  { prompt: 'raw concrete loft, cool overcast light, moody', aspect: '3:2', palette: [] },
  { prompt: 'beach at sunset', aspect: '16:9', palette: [] },
  { prompt: 'shallow pool water with ripples, midday', aspect: '1:1', palette: [] },
  {
    prompt: 'terrazzo floor, bright minimal',
    aspect: '3:4',
    palette: ['#e07a5f', '#3d405b', '#81b29a'],
  },
  { prompt: 'navy velvet, dark and dramatic, candlelight', aspect: '2:3', palette: [] },
  { prompt: 'travertine stone with palm shadows, warm afternoon sun', aspect: '9:16', palette: [] },
  { prompt: 'flat lay on terracotta paper', aspect: '1:1', palette: ['#1d3557'] },
];

const round = (n: number, digits = 1) => Number(n.toFixed(digits));

async function flatBaseline(width: number, height: number): Promise<number> {
  const t = performance.now();
  await sharp({ create: { width, height, channels: 3, background: { r: 226, g: 222, b: 214 } } })
    .png()
    .toBuffer();
  return performance.now() - t;
}

const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

async function main(): Promise<void> {
  const engine = createLocalEnvironmentEngine();
  // Warm-up (JIT, libvips) at a small size.
  await engine.generate({ prompt: 'marble', width: 256, height: 256, seed: 1, palette: [] });
  await flatBaseline(256, 256);

  const images: {
    prompt: string;
    width: number;
    height: number;
    ms: number;
    baselineMs: number;
    png: Buffer;
    horizon: number;
    lightAngle: number;
  }[] = [];
  for (const [i, c] of CASES.entries()) {
    const { width, height } = outputSize(c.aspect, LONG_SIDE);
    const baselineMs = await flatBaseline(width, height);
    const t = performance.now();
    const r = await engine.generate({ prompt: c.prompt, width, height, seed: 1000 + i, palette: c.palette });
    const ms = performance.now() - t;
    images.push({
      prompt: c.prompt,
      width,
      height,
      ms,
      baselineMs,
      png: r.png,
      horizon: r.horizon,
      lightAngle: r.lightAngle,
    });
  }

  // Contact sheet: 4 columns, each image fitted into a TILE square, labelled with its prompt.
  const cols = 4;
  const label = 34;
  const rows = Math.ceil(images.length / cols);
  const pad = 8;
  const cellW = TILE + pad;
  const cellH = TILE + label + pad;
  const composites: OverlayOptions[] = [];
  for (const [i, im] of images.entries()) {
    const left = pad + (i % cols) * cellW;
    const top = pad + Math.floor(i / cols) * cellH;
    const thumb = await sharp(im.png).resize(TILE, TILE, { fit: 'inside' }).toBuffer({ resolveWithObject: true });
    composites.push({
      input: thumb.data,
      left: left + Math.floor((TILE - thumb.info.width) / 2),
      top: top + Math.floor((TILE - thumb.info.height) / 2),
    });
    const words = im.prompt.length > 58 ? `${im.prompt.slice(0, 56)}…` : im.prompt;
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${TILE}" height="${label}"><text x="2" y="13" font-family="sans-serif" font-size="11" fill="#222">${escapeXml(words)}</text><text x="2" y="28" font-family="sans-serif" font-size="10" fill="#666">${im.width}×${im.height} · ${Math.round(im.ms)} ms · horizon ${im.horizon} · light ${im.lightAngle}°</text></svg>`;
    composites.push({ input: Buffer.from(svg), left, top: top + TILE + 2 });
  }
  const sheetPath = path.join(import.meta.dirname, 'results', 'environments.png');
  fs.mkdirSync(path.dirname(sheetPath), { recursive: true });
  await sharp({
    create: { width: pad + cols * cellW, height: pad + rows * cellH, channels: 3, background: '#f4f4f2' },
  })
    .composite(composites)
    .png()
    .toFile(sheetPath);

  const square = images.filter((im) => im.width === LONG_SIDE && im.height === LONG_SIDE);
  const mean = images.reduce((s, im) => s + im.ms, 0) / images.length;
  const baselineMean = images.reduce((s, im) => s + im.baselineMs, 0) / images.length;
  const result = {
    longSide: LONG_SIDE,
    images: images.map((im) => ({
      prompt: im.prompt,
      width: im.width,
      height: im.height,
      ms: round(im.ms),
      flatPngMs: round(im.baselineMs),
    })),
    meanMs: round(mean),
    mean1024SquareMs: round(square.reduce((s, im) => s + im.ms, 0) / Math.max(1, square.length)),
    flatPngBaselineMeanMs: round(baselineMean),
    ratio: round(mean / baselineMean, 1),
    contactSheet: path.relative(process.cwd(), sheetPath),
    // Timings on a shared machine: the 1-minute load average when the run ended, for context.
    loadAverage1m: round(os.loadavg()[0]!, 2),
    cpus: os.cpus().length,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  if (result.mean1024SquareMs > MAX_MS) {
    process.stderr.write(`bench/environments: mean 1024² render ${result.mean1024SquareMs} ms over ${MAX_MS} ms\n`);
    process.exitCode = 1;
  }
}

await main();
