import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { GenerationError } from '../scene-engine.ts';
import { type Cutout, cutOutProduct, cutOutRaw, cutoutCache } from './cutout.ts';

const W = 480;
const H = 400;

/**
 * A synthetic product (anti-aliased, as a renderer draws it): a dark bottle body with a label the
 * colour of the background (interior pixels that must stay), a cap, and a handle ring whose
 * inside shows the background (a hole that must go).
 */
function productSvg(fill: (part: 'body' | 'label' | 'cap' | 'handle') => string, background?: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
    ${background ?? ''}
    <rect x="170" y="110" width="130" height="240" rx="28" fill="${fill('body')}"/>
    <rect x="190" y="180" width="90" height="80" fill="${fill('label')}"/>
    <rect x="195" y="70" width="80" height="46" rx="8" fill="${fill('cap')}"/>
    <circle cx="335" cy="220" r="52" fill="none" stroke="${fill('handle')}" stroke-width="16"/>
  </svg>`;
}

/** The known shape: 1 where the product is (the label included, the handle's hole not). */
async function truthMask(): Promise<Uint8Array> {
  const svg = productSvg(() => '#fff', `<rect width="${W}" height="${H}" fill="#000"/>`);
  const { data } = await sharp(Buffer.from(svg)).removeAlpha().greyscale().raw().toBuffer({ resolveWithObject: true });
  return Uint8Array.from(data, (v) => (v >= 128 ? 1 : 0));
}

// The label is close to the background's colour (ΔE ≈ 4): interior pixels of a similar colour.
const COLOURS = { body: '#1f3b73', label: '#e6e3dc', cap: '#c8102e', handle: '#1f3b73' } as const;

async function onPlain(): Promise<Buffer> {
  const svg = productSvg((p) => COLOURS[p], `<rect width="${W}" height="${H}" fill="#f2f1ee"/>`);
  return sharp(Buffer.from(svg)).removeAlpha().png().toBuffer();
}

/** The same product on a diagonal gradient with waves and grain (deterministic). */
async function onTextured(): Promise<Buffer> {
  const product = await sharp(Buffer.from(productSvg((p) => COLOURS[p])))
    .ensureAlpha()
    .raw()
    .toBuffer();
  const out = Buffer.alloc(W * H * 3);
  let s = 12345;
  const rand = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 4294967296;
  };
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const u = x / W;
      const v = y / H;
      const wave = Math.sin(u * 8 + Math.cos(v * 6) * 2) * 0.5 + 0.5;
      const g = (rand() - 0.5) * 26;
      const bg = [120 + 90 * u + 20 * wave + g, 160 + 50 * v - 20 * u + g, 190 - 60 * v + 15 * wave + g];
      const i = y * W + x;
      const a = product[i * 4 + 3]! / 255;
      for (let c = 0; c < 3; c++) {
        out[i * 3 + c] = Math.max(0, Math.min(255, Math.round(product[i * 4 + c]! * a + bg[c]! * (1 - a))));
      }
    }
  }
  return sharp(out, { raw: { width: W, height: H, channels: 3 } })
    .png()
    .toBuffer();
}

/** IoU of the cut-out's alpha (≥ 50 %) placed back in the frame against the known shape. */
function iou(cut: Cutout, truth: Uint8Array): number {
  let inter = 0;
  let union = 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const bx = x - cut.box.left;
      const by = y - cut.box.top;
      const mine =
        bx >= 0 && by >= 0 && bx < cut.width && by < cut.height && cut.rgba[(by * cut.width + bx) * 4 + 3]! >= 128;
      const t = truth[y * W + x] === 1;
      if (mine && t) inter++;
      if (mine || t) union++;
    }
  }
  return inter / union;
}

/** Alpha of the cut-out at a frame position (0 outside its box). */
const alphaAt = (cut: Cutout, x: number, y: number) => {
  const bx = x - cut.box.left;
  const by = y - cut.box.top;
  if (bx < 0 || by < 0 || bx >= cut.width || by >= cut.height) return 0;
  return cut.rgba[(by * cut.width + bx) * 4 + 3]!;
};

describe('cutOutProduct', () => {
  it('cuts a product out of a plain background: IoU ≥ 0.95, interior of the background colour kept, hole removed', async () => {
    const cut = await cutOutProduct(await onPlain());
    expect(cut.method).toBe('matte');
    expect(cut.warnings).toEqual([]);
    expect(iou(cut, await truthMask())).toBeGreaterThanOrEqual(0.95);
    expect(alphaAt(cut, 235, 220)).toBe(255); // the label, the background's colour, inside the body
    expect(alphaAt(cut, 335, 220)).toBe(0); // inside the handle ring
    expect(alphaAt(cut, 20, 20)).toBe(0);
    // Trimmed to the product (cap top at 70, body bottom at 350, handle right edge at 395).
    expect(cut.box.top).toBeGreaterThanOrEqual(68);
    expect(cut.box.top + cut.box.height).toBeLessThanOrEqual(353);
    expect(cut.box.left + cut.box.width).toBeLessThanOrEqual(398);
  });

  it('decontaminates edges: no light fringe left from the background', async () => {
    const cut = await cutOutProduct(await onPlain());
    // Along the body's left edge (x = 170), pixels with partial alpha keep the body's dark colour.
    for (let y = 150; y < 330; y += 10) {
      for (let x = 166; x < 175; x++) {
        const a = alphaAt(cut, x, y);
        if (a === 0) continue;
        const i = ((y - cut.box.top) * cut.width + x - cut.box.left) * 4;
        const lum = 0.2126 * cut.rgba[i]! + 0.7152 * cut.rgba[i + 1]! + 0.0722 * cut.rgba[i + 2]!;
        expect(lum, `x ${x} y ${y} alpha ${a}`).toBeLessThan(110);
      }
    }
  });

  it('copes with a textured gradient background', async () => {
    const cut = await cutOutProduct(await onTextured());
    expect(cut.method).toBe('matte');
    expect(iou(cut, await truthMask())).toBeGreaterThanOrEqual(0.9);
  });

  it("trusts the upload's own alpha and trims to it", async () => {
    const png = await sharp(Buffer.from(productSvg((p) => COLOURS[p])))
      .png()
      .toBuffer();
    const cut = await cutOutProduct(png);
    expect(cut.method).toBe('alpha');
    expect(cut.confidence).toBe(1);
    expect(iou(cut, await truthMask())).toBeGreaterThan(0.99);
    expect(cut.box.left).toBeGreaterThanOrEqual(168);
    expect(cut.box.left).toBeLessThanOrEqual(171);
    expect(cut.touches).toEqual({ top: false, right: false, bottom: false, left: false });
  });

  it('mattes an opaque image that merely has an alpha channel', async () => {
    const png = await sharp(await onPlain())
      .ensureAlpha()
      .png()
      .toBuffer();
    expect((await sharp(png).metadata()).hasAlpha).toBe(true);
    const cut = await cutOutProduct(png);
    expect(cut.method).toBe('matte');
    expect(iou(cut, await truthMask())).toBeGreaterThanOrEqual(0.95);
  });

  it('works on a bounded copy of a large upload', async () => {
    const big = await sharp(await onPlain())
      .resize(W * 4, H * 4)
      .png()
      .toBuffer();
    const cut = await cutOutProduct(big, { maxSide: 600 });
    expect(cut.sourceWidth).toBe(600);
    expect(cut.scale).toBeCloseTo(600 / (W * 4), 5);
    await expect(cutOutProduct(big, { maxInputPixels: 1000 })).rejects.toBeInstanceOf(GenerationError);
  });

  it('rejects what is not an image, and an image with nothing in it', async () => {
    await expect(cutOutProduct(Buffer.from('not an image'))).rejects.toBeInstanceOf(GenerationError);
    const empty = await sharp({
      create: { width: 64, height: 64, channels: 4, background: { r: 0, g: 0, b: 0, alpha: 0 } },
    })
      .png()
      .toBuffer();
    await expect(cutOutProduct(empty)).rejects.toBeInstanceOf(GenerationError);
  });

  it('warns when nothing in the image looks like a background (a busy close-up)', () => {
    const n = 96 * 96;
    const rgba = new Uint8Array(n * 4);
    let s = 99;
    for (let i = 0; i < n; i++) {
      s = (Math.imul(s, 1103515245) + 12345) >>> 0;
      const v = s >>> 24;
      rgba.set([v, 255 - v, (v * 7) & 255, 255], i * 4);
    }
    const cut = cutOutRaw(rgba, 96, 96);
    expect(cut.method).toBe('matte');
    expect(cut.confidence).toBeLessThan(0.5);
    expect(cut.warnings.map((w) => w.code)).toEqual(['MATTE_UNRELIABLE']);
  });
});

describe('cutoutCache', () => {
  const png = (colour: string) =>
    sharp({ create: { width: 64, height: 64, channels: 3, background: '#ffffff' } })
      .composite([
        { input: Buffer.from(`<svg width="64" height="64"><circle cx="32" cy="32" r="20" fill="${colour}"/></svg>`) },
      ])
      .png()
      .toBuffer();

  it('cuts a picture out once per options, keeps the most recent, and forgets a failure', async () => {
    const cut = cutoutCache(2);
    const [a, b, c] = await Promise.all([png('#c00'), png('#0a0'), png('#00c')]);
    const first = cut(a, { maxSide: 512 });
    expect(cut(Buffer.from(a), { maxSide: 512 })).toBe(first);
    expect(cut(a, { maxSide: 256 })).not.toBe(first);
    await first;
    cut(b);
    cut(c);
    // Three more entries since `first` against room for two: it was dropped.
    expect(cut(a, { maxSide: 512 })).not.toBe(first);

    const broken = Buffer.from('not a picture');
    const failed = cut(broken);
    await expect(failed).rejects.toBeInstanceOf(GenerationError);
    expect(cut(broken)).not.toBe(failed);
    await cut(broken).catch(() => undefined);
  });
});
