/**
 * Product fidelity benchmark: synthetic "provider outputs" (fixture products placed on local
 * environment backdrops, then drifted: logo painted out, colours shifted, replaced by another
 * product; plus one preserved) run through `withProductFidelity` around a fake provider. Prints
 * JSON (per case: decision, similarity, time) and writes a contact sheet to
 * bench/results/fidelity.png (git-ignored): for each case the provider's image, then the result.
 *
 * Exits 1 when the mean check (the wrapper's time minus the fake provider's) of a 1024-px image
 * with one product takes over BENCH_FIDELITY_MAX_MS (default 600 ms; cut-outs cached, as in a
 * forge's four variations), or when a drifted case is not recomposited / a preserved one is (a
 * drift of a logo under ~3 % of the product, the beanie's label, is reported but not failed).
 *
 *   npm run bench -- fidelity
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp, { type OverlayOptions } from 'sharp';
import { createLocalEnvironmentEngine } from '../src/engines/environment/local/local-environment-engine.ts';
import { withProductFidelity } from '../src/engines/image/fidelity.ts';
import { type Cutout, cutOutProduct } from '../src/engines/image/local/cutout.ts';
import type { PlacedBox, SceneEngine, SceneRequest, SceneResult } from '../src/engines/image/scene-engine.ts';

const MAX_MS = Number(process.env.BENCH_FIDELITY_MAX_MS ?? 600);
const FIXTURES = process.env.ATELIER_FIXTURES ?? '/work/shared/fixtures/product-images';
const SIDE = 1024;
const TILE = 300;

type Drift = 'preserved' | 'logo' | 'hue' | 'other';
/** `smallLogo`: the logo is under ~3 % of the product (below what is measured): logo and colour drifts are reported, not failed. */
const ROWS: { product: string; other: string; prompt: string; left: number; height: number; smallLogo?: boolean }[] = [
  {
    product: 'solidus_mug_set',
    other: 'solidus_bottles_1',
    prompt: 'walnut table, warm window light',
    left: 0.3,
    height: 0.5,
  },
  {
    product: 'solidus_cap_red_1',
    other: 'solidus_hat',
    prompt: 'seamless studio paper sweep',
    left: 0.5,
    height: 0.42,
  },
  {
    product: 'solidus_hat',
    other: 'solidus_mug_set',
    prompt: 'raw concrete loft, moody',
    left: 0.62,
    height: 0.55,
    smallLogo: true,
  },
  {
    product: 'solidus_tote',
    other: 'solidus_notebook',
    prompt: 'white marble kitchen counter',
    left: 0.45,
    height: 0.62,
  },
];
const DRIFTS: Drift[] = ['preserved', 'logo', 'hue', 'other'];

const rgbaPng = (c: { rgba: Buffer; width: number; height: number }) =>
  sharp(c.rgba, { raw: { width: c.width, height: c.height, channels: 4 } })
    .png()
    .toBuffer();

/** The logo painted out: bright low-chroma pixels of a darker product take its median colour. */
function paintOutLogo(c: Cutout): Buffer {
  const out = Buffer.from(c.rgba);
  const n = c.width * c.height;
  const lum: number[] = [];
  for (let i = 0; i < n; i += 7) if (out[i * 4 + 3]! > 200) lum.push(i);
  const luma = (i: number) => 0.2126 * out[i * 4]! + 0.7152 * out[i * 4 + 1]! + 0.0722 * out[i * 4 + 2]!;
  lum.sort((a, b) => luma(a) - luma(b));
  const mid = lum[lum.length >> 1]!;
  const med = [out[mid * 4]!, out[mid * 4 + 1]!, out[mid * 4 + 2]!];
  for (let i = 0; i < n; i++) {
    if (out[i * 4 + 3]! < 128) continue;
    const r = out[i * 4]!;
    const g = out[i * 4 + 1]!;
    const b = out[i * 4 + 2]!;
    if (Math.min(r, g, b) > 150 && Math.max(r, g, b) - Math.min(r, g, b) < 60) {
      out[i * 4] = med[0]!;
      out[i * 4 + 1] = med[1]!;
      out[i * 4 + 2] = med[2]!;
    }
  }
  return out;
}

async function providerImage(backdrop: Buffer, product: Buffer, box: PlacedBox): Promise<Buffer> {
  const p = await sharp(product).resize(box.width, box.height, { fit: 'fill' }).png().toBuffer();
  // A soft shadow under the drawn product, as a generator would paint one.
  const shadow = Buffer.from(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${SIDE}" height="${SIDE}"><defs><filter id="b"><feGaussianBlur stdDeviation="${box.height * 0.02}"/></filter></defs><ellipse cx="${box.left + box.width / 2}" cy="${box.top + box.height - 2}" rx="${box.width * 0.45}" ry="${box.height * 0.03}" fill="#000" fill-opacity="0.45" filter="url(#b)"/></svg>`,
  );
  return sharp(backdrop)
    .composite([{ input: shadow }, { input: p, left: box.left, top: box.top }])
    .png()
    .toBuffer();
}

const fakeProvider = (png: Buffer): SceneEngine => ({
  name: 'fake',
  async generate(req: SceneRequest): Promise<SceneResult> {
    return {
      png,
      width: req.width,
      height: req.height,
      productBoxes: req.products.map(() => ({ left: 0, top: 0, width: req.width, height: req.height })),
      warnings: [{ code: 'PRODUCT_PLACEMENT_UNKNOWN', severity: 'info', message: 'unknown' }],
      engine: 'fake',
    };
  },
});

const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
const round = (n: number, digits = 1) => Number(n.toFixed(digits));

async function main(): Promise<void> {
  const env = createLocalEnvironmentEngine();
  const cases: {
    product: string;
    drift: Drift;
    smallLogo: boolean;
    input: Buffer;
    output: Buffer;
    box: PlacedBox;
    codes: string[];
    message: string;
    ms: number;
  }[] = [];
  for (const [ri, row] of ROWS.entries()) {
    const bytes = fs.readFileSync(path.join(FIXTURES, `${row.product}.png`));
    const cut = await cutOutProduct(bytes);
    const other = await cutOutProduct(fs.readFileSync(path.join(FIXTURES, `${row.other}.png`)));
    const backdrop = (await env.generate({ prompt: row.prompt, width: SIDE, height: SIDE, seed: 40 + ri, palette: [] }))
      .png;
    const h = Math.round(SIDE * row.height);
    const w = Math.round((h * cut.width) / cut.height);
    const box = { left: Math.round(SIDE * row.left - w / 2), top: Math.round(SIDE * 0.9 - h), width: w, height: h };
    for (const drift of DRIFTS) {
      let drawn: Buffer;
      let drawnBox = box;
      if (drift === 'preserved') drawn = await rgbaPng(cut);
      else if (drift === 'logo')
        drawn = await sharp(paintOutLogo(cut), { raw: { width: cut.width, height: cut.height, channels: 4 } })
          .png()
          .toBuffer();
      else if (drift === 'hue')
        drawn = await sharp(await rgbaPng(cut))
          .modulate({ hue: 150 })
          .png()
          .toBuffer();
      else {
        drawn = await rgbaPng(other);
        const ow = Math.round((h * other.width) / other.height);
        drawnBox = { left: Math.round(box.left + w / 2 - ow / 2), top: box.top, width: ow, height: h };
      }
      const input = await providerImage(backdrop, drawn, drawnBox);
      const engine = withProductFidelity(fakeProvider(input));
      const req: SceneRequest = {
        prompt: row.prompt,
        aspectRatio: '1:1',
        width: SIDE,
        height: SIDE,
        variationIndex: 0,
        seed: 7,
        products: [{ bytes }],
        palette: [],
      };
      await engine.generate(req); // the cut-out cached, as for a forge's later variations
      const t = performance.now();
      const r = await engine.generate(req);
      const ms = performance.now() - t;
      const codes = r.warnings.map((x) => x.code).filter((c) => c.startsWith('PRODUCT_'));
      const message = r.warnings.find(
        (x) => x.code === 'PRODUCT_RECOMPOSITED' || x.code === 'PRODUCT_FIDELITY_CHECKED',
      );
      cases.push({
        product: row.product,
        drift,
        smallLogo: row.smallLogo === true,
        input,
        output: r.png,
        box: r.productBoxes[0]!,
        codes,
        message: message?.message ?? '',
        ms,
      });
    }
  }

  // Contact sheet: one row per product, each case as provider image | result.
  const label = 30;
  const pad = 8;
  const cols = DRIFTS.length * 2;
  const composites: OverlayOptions[] = [];
  for (const [i, c] of cases.entries()) {
    const row = Math.floor(i / DRIFTS.length);
    const col = (i % DRIFTS.length) * 2;
    for (const [k, png] of [c.input, c.output].entries()) {
      const left = pad + (col + k) * (TILE + pad) + (col / 2) * pad;
      const top = pad + row * (TILE + label + pad);
      composites.push({ input: await sharp(png).resize(TILE, TILE).toBuffer(), left, top });
      const sim = /similarity (\d\.\d\d)/.exec(c.message)?.[1] ?? '?';
      const text =
        k === 0
          ? `${c.product.replace('solidus_', '')} · ${c.drift} (provider)`
          : `${c.codes.includes('PRODUCT_RECOMPOSITED') ? 'recomposited' : 'kept'} · sim ${sim} · ${Math.round(c.ms)} ms`;
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${TILE}" height="${label}"><text x="2" y="16" font-family="sans-serif" font-size="12" fill="#222">${escapeXml(text)}</text></svg>`;
      composites.push({ input: Buffer.from(svg), left, top: top + TILE + 2 });
    }
  }
  const sheetPath = path.join(import.meta.dirname, 'results', 'fidelity.png');
  fs.mkdirSync(path.dirname(sheetPath), { recursive: true });
  await sharp({
    create: {
      width: pad + cols * (TILE + pad) + (DRIFTS.length - 1) * pad,
      height: pad + ROWS.length * (TILE + label + pad),
      channels: 3,
      background: '#f4f4f2',
    },
  })
    .composite(composites)
    .png()
    .toFile(sheetPath);

  const decided = (c: (typeof cases)[number]) => c.codes.includes('PRODUCT_RECOMPOSITED') === (c.drift !== 'preserved');
  const known = (c: (typeof cases)[number]) => c.smallLogo && (c.drift === 'logo' || c.drift === 'hue');
  const wrong = cases.filter((c) => !decided(c) && !known(c));
  const missedKnown = cases.filter((c) => !decided(c) && known(c));
  const meanMs = cases.reduce((s, c) => s + c.ms, 0) / cases.length;
  const result = {
    side: SIDE,
    cases: cases.map((c) => ({
      product: c.product,
      drift: c.drift,
      codes: c.codes,
      similarity: Number(/similarity (\d\.\d\d)/.exec(c.message)?.[1] ?? Number.NaN),
      box: c.box,
      ms: round(c.ms),
    })),
    meanMs: round(meanMs),
    wrongDecisions: wrong.map((c) => `${c.product}:${c.drift}`),
    // A logo under ~3 % of the product is below what the check measures (known, not a failure).
    missedSmallLogoDrifts: missedKnown.map((c) => `${c.product}:${c.drift}`),
    contactSheet: path.relative(process.cwd(), sheetPath),
    loadAverage1m: round(os.loadavg()[0]!, 2),
    cpus: os.cpus().length,
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  if (meanMs > MAX_MS) {
    process.stderr.write(`bench/fidelity: mean check ${round(meanMs)} ms over ${MAX_MS} ms\n`);
    process.exitCode = 1;
  }
  if (wrong.length > 0) {
    process.stderr.write(`bench/fidelity: wrong decisions: ${result.wrongDecisions.join(', ')}\n`);
    process.exitCode = 1;
  }
}

await main();
