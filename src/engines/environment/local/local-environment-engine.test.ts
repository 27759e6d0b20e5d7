import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { type AspectRatio, GenerationError, outputSize } from '../../image/scene-engine.ts';
import type { EnvironmentRequest } from '../environment-engine.ts';
import { shotFor } from '../shot.ts';
import { readEnvironmentPrompt } from './environment-prompt.ts';
import { createLocalEnvironmentEngine, shotHorizon, shotLighting } from './local-environment-engine.ts';

const engine = createLocalEnvironmentEngine();

const req = (over: Partial<EnvironmentRequest> = {}): EnvironmentRequest => ({
  prompt: 'white marble counter against a plaster wall',
  width: 320,
  height: 320,
  seed: 7,
  palette: [],
  ...over,
});

interface Gray {
  data: Float64Array;
  width: number;
  height: number;
}

/** Decoded RGB plus a luminance plane. */
async function decode(png: Buffer): Promise<{ rgb: Buffer; lum: Gray }> {
  const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
  expect(info.channels).toBe(3);
  const lum = new Float64Array(info.width * info.height);
  for (let i = 0; i < lum.length; i++) {
    lum[i] = 0.2126 * data[i * 3]! + 0.7152 * data[i * 3 + 1]! + 0.0722 * data[i * 3 + 2]!;
  }
  return { rgb: data, lum: { data: lum, width: info.width, height: info.height } };
}

function meanOf(g: Gray, x0: number, y0: number, x1: number, y1: number): number {
  let s = 0;
  let n = 0;
  for (let y = Math.floor(y0); y < Math.floor(y1); y++) {
    for (let x = Math.floor(x0); x < Math.floor(x1); x++) {
      s += g.data[y * g.width + x]!;
      n++;
    }
  }
  return s / n;
}

function stdOf(g: Gray): number {
  const m = meanOf(g, 0, 0, g.width, g.height);
  let s = 0;
  for (const v of g.data) s += (v - m) ** 2;
  return Math.sqrt(s / g.data.length);
}

/**
 * Texture energy of a region: mean absolute band-pass (blur σ 1.5 minus blur σ 6) of the region
 * shrunk 2×, so film grain (too fine) and smooth light gradients (too coarse) do not count.
 */
async function textureEnergy(png: Buffer, top: number, bottom: number): Promise<number> {
  const meta = await sharp(png).metadata();
  const small = await sharp(png)
    .extract({ left: 0, top: Math.round(top), width: meta.width!, height: Math.round(bottom - top) })
    .greyscale()
    .resize({ width: Math.round(meta.width! / 2) })
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: small.info.width, height: small.info.height, channels: 1 as const } };
  const fine = await sharp(small.data, raw).blur(1.5).greyscale().raw().toBuffer();
  const coarse = await sharp(small.data, raw).blur(6).greyscale().raw().toBuffer();
  expect(fine.length).toBe(small.data.length);
  let s = 0;
  for (let i = 0; i < fine.length; i++) s += Math.abs(fine[i]! - coarse[i]!);
  return s / fine.length;
}

describe('local environment engine', () => {
  it('is named local and reports the floor line and the light', async () => {
    expect(engine.name).toBe('local');
    const r = await engine.generate(req({ prompt: 'oak table against a plaster wall, light from the left' }));
    expect(r.engine).toBe('local');
    expect(r.horizon).toBeGreaterThan(0.5);
    expect(r.horizon).toBeLessThan(0.72);
    expect(r.lightAngle).toBeGreaterThan(90);
    expect(r.lightAngle).toBeLessThanOrEqual(180);
    expect(r.warnings).toEqual([]);
  });

  it('gives identical bytes for the same seed and different bytes for another', async () => {
    const a = await engine.generate(req());
    const b = await engine.generate(req());
    const c = await engine.generate(req({ seed: 8 }));
    expect(a.png.equals(b.png)).toBe(true);
    expect(a.png.equals(c.png)).toBe(false);
    expect({ ...a, png: null }).toEqual({ ...b, png: null });
  });

  it.each<AspectRatio>(['1:1', '16:9', '9:16', '21:9', '3:4'])(
    'renders exactly the size asked for (%s)',
    async (ar) => {
      const { width, height } = outputSize(ar, 384);
      const r = await engine.generate(req({ width, height, prompt: 'beach at sunset' }));
      const meta = await sharp(r.png).metadata();
      expect(meta.format).toBe('png');
      expect([meta.width, meta.height]).toEqual([width, height]);
      expect([r.width, r.height]).toEqual([width, height]);
    },
  );

  it('renders odd sizes and every layout', async () => {
    for (const prompt of ['studio', 'flat lay on linen', 'beach', 'terrazzo', 'palm shadows on plaster']) {
      const r = await engine.generate(req({ prompt, width: 97, height: 61 }));
      const meta = await sharp(r.png).metadata();
      expect([meta.width, meta.height]).toEqual([97, 61]);
    }
  });

  it.each([
    [4097, 512],
    [512, 5000],
    [0, 512],
    [10.5, 512],
    [Number.NaN, 512],
  ])('rejects %s × %s with a GenerationError', async (width, height) => {
    await expect(engine.generate(req({ width, height }))).rejects.toBeInstanceOf(GenerationError);
  });

  it('stops when its signal is aborted, before or during the render', async () => {
    const ac = new AbortController();
    ac.abort(new Error('cancelled'));
    await expect(engine.generate(req({ signal: ac.signal }))).rejects.toThrow('cancelled');
    const late = new AbortController();
    const run = engine.generate(req({ width: 1024, height: 1024, signal: late.signal }));
    setImmediate(() => late.abort(new Error('cancelled late')));
    await expect(run).rejects.toThrow('cancelled late');
  });

  it('warns about palette entries that are not #rrggbb and uses the rest', async () => {
    const r = await engine.generate(req({ palette: ['#123456', 'blue'] }));
    expect(r.warnings).toEqual([expect.objectContaining({ code: 'PALETTE_COLOR_IGNORED', severity: 'warning' })]);
    const quiet = await engine.generate(req({ prompt: 'xyzzy', palette: [] }));
    expect(quiet.warnings.map((w) => w.code)).toEqual(['ENVIRONMENT_PROMPT_DEFAULTED']);
  });

  it.each([
    'white marble counter against a plaster wall',
    'walnut table, golden hour',
    'crumpled linen',
    'raw concrete loft',
    'beach',
    'shallow pool water',
    'terrazzo floor',
    'travertine stone',
    'zellige tile floor',
  ])('is not flat: %s', async (prompt) => {
    // At eye level (the low shot's long lens softens the floor near the camera).
    const r = await engine.generate(req({ prompt, width: 384, height: 384, variationIndex: 0 }));
    const { lum } = await decode(r.png);
    expect(stdOf(lum)).toBeGreaterThan(6);
    // The floor (in focus, near the camera) carries visible texture, not just a gradient.
    const floorTop = r.horizon * 384 + (384 - r.horizon * 384) * 0.35;
    const energy = await textureEnergy(r.png, floorTop, 384);
    if (process.env.ENV_DEBUG) console.log(prompt, { std: stdOf(lum), energy });
    expect(energy).toBeGreaterThan(0.9);
    // And the floor differs from the wall.
    const wall = meanOf(lum, 0, 0, 384, r.horizon * 384 - 20);
    const floor = meanOf(lum, 0, r.horizon * 384 + 20, 384, 384);
    expect(Math.abs(wall - floor)).toBeGreaterThan(3);
  });

  it('has more texture than a plain paper sweep on textured surfaces', async () => {
    // The same shot for both (its props stand left of the product, outside the measured floor).
    const paper = await engine.generate(req({ prompt: 'seamless paper', width: 384, height: 384, variationIndex: 0 }));
    const wood = await engine.generate(req({ prompt: 'oak table', width: 384, height: 384, variationIndex: 0 }));
    const e = (png: Buffer) => textureEnergy(png, 260, 384);
    if (process.env.ENV_DEBUG) console.log({ paper: await e(paper.png), wood: await e(wood.png) });
    expect(await e(wood.png)).toBeGreaterThan((await e(paper.png)) * 1.6);
  });

  it('is brighter on the side the light comes from', async () => {
    for (const [words, brighter] of [
      ['light from the left', 'left'],
      ['light from the right', 'right'],
    ] as const) {
      for (const surface of ['plaster wall and linen floor', 'seamless paper', 'concrete']) {
        const r = await engine.generate(req({ prompt: `${surface}, ${words}`, width: 384, height: 256 }));
        const { lum } = await decode(r.png);
        const left = meanOf(lum, 0, 0, 128, 256);
        const right = meanOf(lum, 256, 0, 384, 256);
        if (brighter === 'left') {
          expect(left, `${surface}, ${words}`).toBeGreaterThan(right + 4);
          expect(r.lightAngle).toBeGreaterThan(90);
        } else {
          expect(right, `${surface}, ${words}`).toBeGreaterThan(left + 4);
          expect(r.lightAngle).toBeLessThan(90);
        }
      }
    }
  });

  it('mirrors an unspecified light by seed, and reports the side it used', async () => {
    const sides = new Set<string>();
    for (let seed = 1; seed <= 8; seed++) {
      const r = await engine.generate(req({ prompt: 'seamless paper', seed, width: 192, height: 128 }));
      const { lum } = await decode(r.png);
      const left = meanOf(lum, 0, 0, 64, 128);
      const right = meanOf(lum, 128, 0, 192, 128);
      const side = left > right ? 'left' : 'right';
      expect(side).toBe(r.lightAngle > 90 ? 'left' : 'right');
      sides.add(side);
    }
    expect(sides.size).toBe(2);
  });

  it('takes the palette: the mean hue follows the brand colour', async () => {
    const mean = async (palette: string[]) => {
      const r = await engine.generate(req({ prompt: 'studio backdrop', palette, width: 256, height: 256 }));
      const { rgb } = await decode(r.png);
      const m = [0, 0, 0];
      for (let i = 0; i < rgb.length; i++) m[i % 3]! += rgb[i]!;
      return m.map((v) => v / (rgb.length / 3));
    };
    const [r1, , b1] = await mean(['#b03a2e']);
    const [r2, , b2] = await mean(['#2e5cb0']);
    expect(r1! - b1!).toBeGreaterThan(40);
    expect(b2! - r2!).toBeGreaterThan(30);
    // Prompt colour words count too.
    const [r3, g3, b3] = await (async () => {
      const r = await engine.generate(req({ prompt: 'sage green paper sweep', width: 256, height: 256 }));
      const { rgb } = await decode(r.png);
      const m = [0, 0, 0];
      for (let i = 0; i < rgb.length; i++) m[i % 3]! += rgb[i]!;
      return m;
    })();
    expect(g3!).toBeGreaterThan(r3!);
    expect(g3!).toBeGreaterThan(b3!);
  });

  it('warns UNDRAWABLE_SUBJECT naming the words and a provider, and draws the set', async () => {
    const r = await engine.generate(
      req({ prompt: 'on a park bench in a kitchen, golden hour', width: 64, height: 64 }),
    );
    const w = r.warnings.find((x) => x.code === 'UNDRAWABLE_SUBJECT');
    expect(w).toMatchObject({ severity: 'warning' });
    expect(w!.message).toContain('"park bench", "kitchen"');
    expect(w!.message).toContain('IMAGE_ENGINE');
    const quiet = await engine.generate(req({ prompt: 'sage plaster wall, walnut table', width: 64, height: 64 }));
    expect(quiet.warnings.map((x) => x.code)).not.toContain('UNDRAWABLE_SUBJECT');
  });

  it('keeps the named wall colour under a palette and adds the brand as an accent prop', async () => {
    const prompt = 'warm plaster wall, oak shelf, soft light';
    const size = { width: 256, height: 256, seed: 11 };
    const plain = await decode((await engine.generate(req({ prompt, ...size }))).png);
    const branded = await decode((await engine.generate(req({ prompt, ...size, palette: ['#8c1c2b'] }))).png);
    // The wall's middle is the same as without a palette.
    const wallMean = (rgb: Buffer) => {
      const m = [0, 0, 0];
      for (let y = 40; y < 90; y++)
        for (let x = 100; x < 156; x++) for (let k = 0; k < 3; k++) m[k]! += rgb[(y * 256 + x) * 3 + k]!;
      return m.map((v) => v / (50 * 56));
    };
    const a = wallMean(plain.rgb);
    const b = wallMean(branded.rgb);
    for (let k = 0; k < 3; k++) expect(Math.abs(a[k]! - b[k]!)).toBeLessThan(3);
    // Somewhere (the prop) the frame is brand red: red well above green and blue.
    let reds = 0;
    for (let i = 0; i < branded.rgb.length; i += 3) {
      const [r, g, bl] = [branded.rgb[i]!, branded.rgb[i + 1]!, branded.rgb[i + 2]!];
      if (r - g > 50 && r - bl > 40) reds++;
    }
    expect(reds / (256 * 256)).toBeGreaterThan(0.01);
  });

  it('is warmer at golden hour than in cool daylight', async () => {
    const warmth = async (prompt: string) => {
      const r = await engine.generate(req({ prompt, width: 256, height: 256 }));
      const { rgb } = await decode(r.png);
      let d = 0;
      for (let i = 0; i < rgb.length; i += 3) d += rgb[i]! - rgb[i + 2]!;
      return d / (rgb.length / 3);
    };
    expect(await warmth('plaster wall, linen, golden hour')).toBeGreaterThan(
      (await warmth('plaster wall, linen, cool daylight')) + 10,
    );
  });

  it('is darker when moody than when bright and airy', async () => {
    const mean = async (prompt: string) => {
      const r = await engine.generate(req({ prompt, width: 256, height: 256 }));
      return meanOf((await decode(r.png)).lum, 0, 0, 256, 256);
    };
    expect(await mean('concrete, bright and airy')).toBeGreaterThan((await mean('concrete, dark and moody')) + 25);
  });

  it("shoots a forge's four variations as four shots: camera height, light side and height, turn, props", async () => {
    const prompt = 'walnut table against a white plaster wall';
    const shots = await Promise.all(
      [0, 1, 2, 3].map((variationIndex) => engine.generate(req({ prompt, width: 256, height: 256, variationIndex }))),
    );
    // High (1), eye level (0), a little low (2), near the floor (3): the floor line moves down.
    const h = shots.map((r) => r.horizon);
    expect(h[1]!).toBeLessThan(h[0]!);
    expect(h[0]!).toBeLessThan(h[2]!);
    expect(h[2]!).toBeLessThan(h[3]!);
    expect(shots[1]!.camera!).toBeGreaterThan(shots[0]!.camera!);
    expect(shots[0]!.camera!).toBeGreaterThan(shots[3]!.camera!);
    // The key from the right, left, left, right, as the light hint says too.
    expect(shots.map((r) => (r.lightAngle < 90 ? 'right' : 'left'))).toEqual(['right', 'left', 'left', 'right']);
    for (const r of shots) {
      const k = r.light!.key;
      expect(Math.hypot(k.x, k.y, k.z)).toBeCloseTo(1, 2);
      expect(Math.sign(k.x)).toBe(r.lightAngle < 90 ? 1 : -1);
      expect(k.y).toBeGreaterThan(0);
    }
    // A harder key in the high shot than in the low one.
    expect(shots[1]!.light!.hardness).toBeGreaterThan(shots[3]!.light!.hardness);
    // Different pictures, each the same again for the same variation and seed.
    const again = await engine.generate(req({ prompt, width: 256, height: 256, variationIndex: 2 }));
    expect(again.png.equals(shots[2]!.png)).toBe(true);
    const decoded = await Promise.all(shots.map((r) => decode(r.png)));
    for (let i = 0; i < 4; i++) {
      for (let j = i + 1; j < 4; j++) {
        let d = 0;
        for (let k = 0; k < decoded[i]!.lum.data.length; k++)
          d += Math.abs(decoded[i]!.lum.data[k]! - decoded[j]!.lum.data[k]!);
        expect(d / decoded[i]!.lum.data.length, `shots ${i} and ${j}`).toBeGreaterThan(6);
      }
    }
  });

  it('turns the camera in a turned shot: the wall meets the floor on a slant', async () => {
    const seam = async (variationIndex: number) => {
      const r = await engine.generate(
        req({ prompt: 'dark walnut floor, white plaster wall', width: 384, height: 384, variationIndex }),
      );
      const { lum } = await decode(r.png);
      // Per band of columns, the row where the brightness falls most steeply going down.
      const rowOf = (x0: number, x1: number) => {
        let best = 0;
        let at = 0;
        for (let y = 60; y < 330; y++) {
          const d = meanOf(lum, x0, y - 4, x1, y) - meanOf(lum, x0, y, x1, y + 4);
          if (d > best) {
            best = d;
            at = y;
          }
        }
        return at;
      };
      // Two bands of bare wall and floor (the shots' props stand further out).
      return rowOf(90, 120) - rowOf(170, 200);
    };
    expect(Math.abs(await seam(0))).toBeLessThanOrEqual(2);
    expect(Math.abs(await seam(1))).toBeGreaterThan(6);
  });

  it("dresses the set in the open side of the frame, in the brand's accent when the prompt chose the colours", async () => {
    const prompt = 'warm plaster wall, oak table, soft light';
    // Shot 1 puts the product on the left third: its steps stand on the right.
    const r = await engine.generate(req({ prompt, width: 256, height: 256, palette: ['#c8102e'], variationIndex: 1 }));
    const { rgb } = await decode(r.png);
    let left = 0;
    let right = 0;
    for (let i = 0; i < 256 * 256; i++) {
      const [cr, cg, cb] = [rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!];
      // The brand's red as lit (not the oak's orange).
      if (cr > 120 && cg < 70 && cb < 90) {
        if (i % 256 < 128) left++;
        else right++;
      }
    }
    expect(right / (256 * 256)).toBeGreaterThan(0.02);
    expect(left).toBeLessThan(right / 10);
  });

  it('lets the prompt keep its light: a named side in every shot, a named height mostly', () => {
    const left = readEnvironmentPrompt('plaster wall, oak table, light from the left');
    for (let v = 0; v < 4; v++) expect(shotLighting(left, shotFor(v)).angle).toBeGreaterThan(90);
    const sunset = readEnvironmentPrompt('oak table, plaster wall, golden hour');
    for (let v = 0; v < 4; v++) {
      const { angle } = shotLighting(sunset, shotFor(v));
      expect(Math.min(angle, 180 - angle)).toBeLessThan(25); // still a low sun
    }
    const open = readEnvironmentPrompt('oak table, plaster wall');
    expect(shotLighting(open, shotFor(1)).angle).toBe(150); // the shot's 30° from the left
    // A named view moves less than an open one.
    const low = readEnvironmentPrompt('oak table, plaster wall, low angle');
    expect(shotHorizon(low, shotFor(1)) - low.horizon).toBeGreaterThan(shotHorizon(open, shotFor(1)) - open.horizon);
  });
});
