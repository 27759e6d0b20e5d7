/**
 * Prompt adherence of the local engines (the environment engine's backdrop, then the local scene
 * engine's composite, as a scene forge makes them): every fixture product × 12 prompts that name
 * a wall colour or material, a floor material and a light, with a Brand DNA palette on.
 *
 *  - namedColourShare: share of scenes whose wall (the backdrop above the floor line, products
 *    left out) is dominated by the prompt's colour: at least half of its coloured pixels within
 *    25° of hue of it. The prompt's colour is the named colour, or the named material's own.
 *  - paletteAccentShare: share of scenes where a brand colour shows as an accent: at least 0.8 %
 *    of the frame (products left out) of a chromatic palette colour as lit: within 20° of its Lab
 *    hue with at least half its chroma; pixels of the named colour's hue not counted.
 *
 * Prints JSON; writes a labelled contact sheet (two products a prompt) to
 * bench/results/prompt-adherence.png (git-ignored). Exits 1 under BENCH_ADHERENCE_MIN_NAMED
 * (default 0.95) or BENCH_ADHERENCE_MIN_ACCENT (default 0.8). Skips when the fixtures are absent.
 *
 *   npm run bench -- prompt-adherence
 */
import fs from 'node:fs';
import path from 'node:path';
import sharp, { type OverlayOptions } from 'sharp';
import { parseHex, rgbToHsl } from '../src/adapters/media/colors.ts';
import { COLOR_NAMES, MATERIAL_BASE, type Rgb } from '../src/engines/environment/local/environment-prompt.ts';
import { createLocalEnvironmentEngine } from '../src/engines/environment/local/local-environment-engine.ts';
import { createLocalSceneEngine } from '../src/engines/image/local/local-scene-engine.ts';

const FIXTURES = process.env.BENCH_SCENE_FIXTURES ?? '/work/shared/fixtures/product-images';
const LONG_SIDE = Number(process.env.BENCH_ADHERENCE_SIDE ?? 512);
const LIMIT = Number(process.env.BENCH_ADHERENCE_LIMIT ?? 0);
const MIN_NAMED = Number(process.env.BENCH_ADHERENCE_MIN_NAMED ?? 0.95);
const MIN_ACCENT = Number(process.env.BENCH_ADHERENCE_MIN_ACCENT ?? 0.8);
const HUE_TOLERANCE = 25;
const ACCENT_HUE = 20;
const ACCENT_SHARE = 0.008;
const TILE = 220;

/** Prompts, each with the colour (a COLOR_NAMES word) or material (MATERIAL_BASE) its wall names. */
const PROMPTS: { prompt: string; wall: string }[] = [
  { prompt: 'a warm plaster wall, oak shelf, golden light', wall: 'plaster' },
  { prompt: 'sage green plaster wall, walnut table, soft morning daylight', wall: 'sage green' },
  { prompt: 'dusty blue wall, white marble counter, cool overcast light', wall: 'dusty blue' },
  { prompt: 'pastel pink paper backdrop, bright and airy', wall: 'pink' },
  { prompt: 'navy velvet backdrop, dark and moody, candlelight', wall: 'navy' },
  { prompt: 'mustard wall, polished concrete floor, hard midday sun', wall: 'mustard' },
  { prompt: 'travertine stone wall, linen cloth, afternoon sun with palm shadows', wall: 'stone' },
  { prompt: 'coral wall, linen tablecloth, sunlight through a window', wall: 'coral' },
  { prompt: 'lavender seamless paper sweep, soft light', wall: 'lavender' },
  { prompt: 'teal zellige tile wall, marble countertop, morning light', wall: 'teal' },
  { prompt: 'kitchen with a terracotta tiled backsplash, wooden counter, evening light', wall: 'terracotta' },
  { prompt: 'park bench in front of a limewashed ochre wall, golden hour', wall: 'ochre' },
];

/** Brand DNA palettes (strongest first), one per product in turn. */
const PALETTES: string[][] = [
  ['#c8102e', '#111111'],
  ['#1d3557', '#e63946', '#f1faee'],
  ['#2a9d8f', '#e9c46a', '#264653'],
];

const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
const round = (n: number, digits = 3) => Number(n.toFixed(digits));

function hueDistance(a: number, b: number): number {
  const d = Math.abs(a - b) % 360;
  return d > 180 ? 360 - d : d;
}

function lab(r: number, g: number, b: number): [number, number, number] {
  const lin = (v: number) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const R = lin(r);
  const G = lin(g);
  const B = lin(b);
  const x = (0.4124 * R + 0.3576 * G + 0.1805 * B) / 0.95047;
  const y = 0.2126 * R + 0.7152 * G + 0.0722 * B;
  const z = (0.0193 * R + 0.1192 * G + 0.9505 * B) / 1.08883;
  const f = (t: number) => (t > 216 / 24389 ? Math.cbrt(t) : ((t * 24389) / 27 + 16) / 116);
  const fx = f(x);
  const fy = f(y);
  const fz = f(z);
  return [116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)];
}

interface Measure {
  namedShare: number;
  accentShare: number;
}

function measure(
  rgb: Buffer,
  mask: Buffer | undefined,
  W: number,
  H: number,
  horizon: number,
  target: Rgb,
  palette: Rgb[],
): Measure {
  const [th] = rgbToHsl(target);
  // Neutral brand colours (black, white, greys) are not counted: shadows and highlights match them.
  const palLab = palette.map((c) => lab(...c)).filter((q) => Math.hypot(q[1], q[2]) >= 12);
  const wallEnd = Math.floor(Math.max(0.1, horizon - 0.03) * H);
  let coloured = 0;
  let near = 0;
  let free = 0;
  let accent = 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const p = y * W + x;
      if (mask && mask[p]! > 24) continue;
      const r = rgb[p * 3]!;
      const g = rgb[p * 3 + 1]!;
      const b = rgb[p * 3 + 2]!;
      free++;
      const [h, s, l] = rgbToHsl([r, g, b]);
      const named = hueDistance(h, th) <= HUE_TOLERANCE;
      // A pixel of the named colour is the named colour, not an accent, even when close to a brand one.
      if (!named || s < 0.06) {
        const L = lab(r, g, b);
        const C = Math.hypot(L[1], L[2]);
        const hab = (Math.atan2(L[2], L[1]) * 180) / Math.PI;
        // The brand colour as lit: its Lab hue, at least half its chroma (shading moves L and C).
        if (
          palLab.some(
            (q) =>
              C >= Math.max(12, 0.45 * Math.hypot(q[1], q[2])) &&
              hueDistance(hab, (Math.atan2(q[2], q[1]) * 180) / Math.PI) <= ACCENT_HUE,
          )
        )
          accent++;
      }
      if (y >= wallEnd) continue;
      if (s < 0.06 || l < 0.05 || l > 0.97) continue;
      coloured++;
      if (named) near++;
    }
  }
  return { namedShare: coloured === 0 ? 0 : near / coloured, accentShare: free === 0 ? 0 : accent / free };
}

async function main(): Promise<void> {
  if (!fs.existsSync(FIXTURES)) {
    process.stdout.write(`${JSON.stringify({ skipped: `no fixtures at ${FIXTURES}` })}\n`);
    return;
  }
  let names = fs
    .readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.png'))
    .sort()
    .map((f) => path.basename(f, '.png'));
  if (LIMIT > 0) names = names.slice(0, LIMIT);
  const env = createLocalEnvironmentEngine();
  const scene = createLocalSceneEngine({ longSide: LONG_SIDE });
  const W = LONG_SIDE;
  const H = LONG_SIDE;

  const perPrompt = PROMPTS.map(() => ({ named: 0, accent: 0, n: 0, warnings: new Set<string>() }));
  const sheet: { png: Buffer; label: string; sub: string }[] = [];
  let named = 0;
  let accents = 0;
  let total = 0;
  const t0 = performance.now();
  for (const [k, name] of names.entries()) {
    const bytes = fs.readFileSync(path.join(FIXTURES, `${name}.png`));
    const palette = PALETTES[k % PALETTES.length]!;
    const palRgb = palette.map((h) => parseHex(h)!).filter(Boolean) as Rgb[];
    for (const [i, p] of PROMPTS.entries()) {
      const seed = 7000 + k * 31 + i;
      // The set shot for the variation, as a forge makes it (scenes.jobs.ts).
      const variationIndex = (k + i) % 4;
      const e = await env.generate({ prompt: p.prompt, width: W, height: H, seed, palette, variationIndex });
      const r = await scene.generate({
        prompt: p.prompt,
        aspectRatio: '1:1',
        width: W,
        height: H,
        variationIndex,
        seed,
        products: [{ bytes }],
        backdrop: e.png,
        backdropHints: { horizon: e.horizon, lightAngle: e.lightAngle, light: e.light, camera: e.camera },
        palette,
      });
      const { data } = await sharp(r.png).removeAlpha().raw().toBuffer({ resolveWithObject: true });
      const target = (COLOR_NAMES[p.wall] ?? MATERIAL_BASE[p.wall as keyof typeof MATERIAL_BASE])!;
      const m = measure(data, r.productMask, W, H, e.horizon, target, palRgb);
      const namedOk = m.namedShare >= 0.5;
      const accentOk = m.accentShare >= ACCENT_SHARE;
      named += namedOk ? 1 : 0;
      accents += accentOk ? 1 : 0;
      total++;
      const pp = perPrompt[i]!;
      pp.n++;
      pp.named += namedOk ? 1 : 0;
      pp.accent += accentOk ? 1 : 0;
      for (const w of [...e.warnings, ...r.warnings]) if (!w.message.startsWith('Product')) pp.warnings.add(w.code);
      if (k < 2) {
        sheet.push({
          png: r.png,
          label: p.prompt,
          sub: `${name} · ${p.wall} ${Math.round(m.namedShare * 100)}% ${namedOk ? '✓' : '✗'} · accent ${(m.accentShare * 100).toFixed(1)}% ${accentOk ? '✓' : '✗'}`,
        });
      }
    }
  }
  const ms = performance.now() - t0;

  // Contact sheet: one row per prompt, the first two products side by side (6 columns).
  const cols = 6;
  const label = 32;
  const pad = 6;
  const cellW = TILE + pad;
  const cellH = TILE + label + pad;
  const rows = Math.ceil(sheet.length / cols);
  const composites: OverlayOptions[] = [];
  for (const [i, im] of sheet.entries()) {
    const left = pad + (i % cols) * cellW;
    const top = pad + Math.floor(i / cols) * cellH;
    composites.push({ input: await sharp(im.png).resize(TILE, TILE).toBuffer(), left, top });
    const words = im.label.length > 44 ? `${im.label.slice(0, 42)}…` : im.label;
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${TILE}" height="${label}"><text x="2" y="12" font-family="sans-serif" font-size="10" fill="#222">${escapeXml(words)}</text><text x="2" y="26" font-family="sans-serif" font-size="9" fill="#666">${escapeXml(im.sub)}</text></svg>`;
    composites.push({ input: Buffer.from(svg), left, top: top + TILE + 2 });
  }
  const sheetPath = path.join(import.meta.dirname, 'results', 'prompt-adherence.png');
  fs.mkdirSync(path.dirname(sheetPath), { recursive: true });
  await sharp({
    create: { width: pad + cols * cellW, height: pad + rows * cellH, channels: 3, background: '#f4f4f2' },
  })
    .composite(composites)
    .png()
    .toFile(sheetPath);

  const result = {
    products: names.length,
    prompts: PROMPTS.length,
    scenes: total,
    side: LONG_SIDE,
    namedColourShare: round(named / Math.max(1, total)),
    paletteAccentShare: round(accents / Math.max(1, total)),
    perPrompt: PROMPTS.map((p, i) => ({
      prompt: p.prompt,
      wall: p.wall,
      named: round(perPrompt[i]!.named / Math.max(1, perPrompt[i]!.n)),
      accent: round(perPrompt[i]!.accent / Math.max(1, perPrompt[i]!.n)),
      warnings: [...perPrompt[i]!.warnings],
    })),
    meanSceneMs: round(ms / Math.max(1, total), 1),
    contactSheet: path.relative(process.cwd(), sheetPath),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  if (result.namedColourShare < MIN_NAMED || result.paletteAccentShare < MIN_ACCENT) {
    process.stderr.write(
      `bench/prompt-adherence: named colour ${result.namedColourShare} (min ${MIN_NAMED}), palette accent ${result.paletteAccentShare} (min ${MIN_ACCENT})\n`,
    );
    process.exitCode = 1;
  }
}

await main();
