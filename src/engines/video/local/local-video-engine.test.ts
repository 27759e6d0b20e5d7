import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runProcess } from '../../../adapters/media/run-process.ts';
import { ffmpegPath, ffprobePath } from '../../../adapters/media/video.ts';
import { GenerationError } from '../../image/scene-engine.ts';
import type { VideoResult } from '../video-engine.ts';
import { createLocalVideoEngine } from './local-video-engine.ts';

const W = 320;
const H = 180;
let dir: string;
const engine = createLocalVideoEngine();

/** A scene-like start frame: a wall, a floor and a product-ish object with a distinct colour. */
async function scene(wall: string, product: string): Promise<Buffer> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}">
    <rect width="${W}" height="${H}" fill="${wall}"/><rect y="120" width="${W}" height="60" fill="#cfc6b8"/>
    <circle cx="60" cy="45" r="22" fill="#b89f7a"/>
    <rect x="140" y="50" width="40" height="80" rx="8" fill="${product}"/></svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

interface Probe {
  streams: {
    codec_type: string;
    codec_name: string;
    width?: number;
    height?: number;
    pix_fmt?: string;
    r_frame_rate?: string;
  }[];
  format: { duration: string };
}

async function save(r: VideoResult, name: string): Promise<string> {
  const file = path.join(dir, name);
  await fs.writeFile(file, r.mp4);
  return file;
}

async function probe(file: string): Promise<Probe> {
  const r = await runProcess(
    ffprobePath(),
    ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', file],
    { timeoutMs: 20_000, maxStdoutBytes: 1 << 20, label: 'ffprobe' },
  );
  return JSON.parse(r.stdout.toString('utf8')) as Probe;
}

/** Frame `n` as 32×18 grey pixels. */
async function frame(file: string, n: number): Promise<Buffer> {
  const r = await runProcess(
    ffmpegPath(),
    [
      '-v',
      'error',
      '-i',
      file,
      '-vf',
      `select=eq(n\\,${n}),scale=32:18`,
      '-frames:v',
      '1',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      'pipe:1',
    ],
    { timeoutMs: 20_000, maxStdoutBytes: 1 << 20, label: 'ffmpeg' },
  );
  expect(r.stdout.length).toBe(32 * 18 * 3);
  return r.stdout;
}

const meanDiff = (a: Buffer, b: Buffer) => a.reduce((s, v, i) => s + Math.abs(v - (b[i] as number)), 0) / a.length;

async function expectClip(file: string, seconds: number, audio: boolean) {
  const p = await probe(file);
  const v = p.streams.filter((s) => s.codec_type === 'video');
  expect(v).toHaveLength(1);
  expect(v[0]).toMatchObject({ codec_name: 'h264', width: W, height: H, pix_fmt: 'yuv420p', r_frame_rate: '30/1' });
  expect(Math.abs(Number(p.format.duration) - seconds)).toBeLessThanOrEqual(0.1);
  expect(p.streams.filter((s) => s.codec_type === 'audio').map((s) => s.codec_name)).toEqual(audio ? ['aac'] : []);
}

beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'video-engine-test-'));
});
afterAll(async () => {
  await fs.rm(dir, { recursive: true, force: true });
});

describe('local video engine', () => {
  it('moves a start frame with the named camera move: H.264 yuv420p, exact size, fps and length, no audio', async () => {
    const r = await engine.generate({
      prompt: 'slow push in on the bottle',
      width: W,
      height: H,
      durationSeconds: 1.5,
      seed: 1,
      startFrame: await scene('#ece6dc', '#2a6f97'),
    });
    expect(r).toMatchObject({
      width: W,
      height: H,
      fps: 30,
      durationSeconds: 1.5,
      engine: 'local',
      previewFormat: 'mp4',
    });
    expect(r.camera).toEqual({ move: 'push-in', source: 'prompt' });
    const file = await save(r, 'push.mp4');
    await expectClip(file, 1.5, false);
    // Frames change over time, and the first one is the start frame (zoom 1).
    expect(meanDiff(await frame(file, 0), await frame(file, 44))).toBeGreaterThan(2);
    const preview = path.join(dir, 'preview.mp4');
    await fs.writeFile(preview, r.preview);
    const pp = await probe(preview);
    expect(pp.streams.find((s) => s.codec_type === 'video')).toMatchObject({ codec_name: 'h264', width: 320 });
    expect(r.preview.length).toBeLessThan(r.mp4.length * 2);
  }, 30_000);

  it('orbits with parallax: the product on its own layer (from a given mask, or the matte)', async () => {
    const start = await scene('#ece6dc', '#2a6f97');
    const mask = Buffer.alloc(W * H);
    for (let y = 50; y < 130; y++) mask.fill(255, y * W + 140, y * W + 180);
    for (const extra of [{ startFrameMask: { data: mask, width: W, height: H } }, {}]) {
      const r = await engine.generate({
        prompt: 'orbit',
        width: W,
        height: H,
        durationSeconds: 1,
        seed: 5,
        startFrame: start,
        ...extra,
      });
      expect(r.camera).toEqual({ move: 'orbit', source: 'prompt' });
      expect(r.warnings.map((w) => w.code)).not.toContain('PARALLAX_SKIPPED');
      const file = await save(r, 'orbit.mp4');
      await expectClip(file, 1, false);
      expect(meanDiff(await frame(file, 0), await frame(file, 29))).toBeGreaterThan(1);
    }
  }, 30_000);

  describe('from a scene’s layers (a clean plate and the product layer)', () => {
    const S = 240;
    const WALL = [226, 218, 204] as const;
    const FLOOR = [176, 158, 134] as const;
    /** A 1:1 scene as layers: a flat wall and floor, and a tall blue product standing on the floor. */
    async function layered(halo = false) {
      const plate = await sharp(
        Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${S}" height="${S}">
          <rect width="${S}" height="${S}" fill="rgb(${WALL})"/><rect y="${S * 0.6}" width="${S}" height="${S * 0.4}" fill="rgb(${FLOOR})"/>
          ${halo ? `<ellipse cx="${S / 2}" cy="${S * 0.45}" rx="${S * 0.2}" ry="${S * 0.4}" fill="#f4f1ec"/>` : ''}</svg>`),
      )
        .removeAlpha()
        .png()
        .toBuffer();
      const product = await sharp(
        Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" width="${S}" height="${S}">
          <rect x="${S * 0.38}" y="${S * 0.12}" width="${S * 0.24}" height="${S * 0.74}" rx="10" fill="#1f4fd8"/></svg>`),
      )
        .png()
        .toBuffer();
      const png = await sharp(plate)
        .composite([{ input: product }])
        .png()
        .toBuffer();
      return { png, layers: { plate, product, horizon: 0.6 } };
    }

    /** Every 3rd frame as RGB. */
    async function frames(file: string): Promise<Buffer[]> {
      const r = await runProcess(
        ffmpegPath(),
        [
          '-v',
          'error',
          '-i',
          file,
          '-vf',
          "select='not(mod(n\\,3))'",
          '-vsync',
          '0',
          '-f',
          'rawvideo',
          '-pix_fmt',
          'rgb24',
          'pipe:1',
        ],
        { timeoutMs: 20_000, maxStdoutBytes: 64 << 20, label: 'ffmpeg' },
      );
      const size = W * H * 3;
      return Array.from({ length: Math.floor(r.stdout.length / size) }, (_, i) =>
        r.stdout.subarray(i * size, (i + 1) * size),
      );
    }

    /**
     * The product (blue) in a frame, and the smear around it: in a band within 8 px of it, how far
     * each pixel is from the set (the wall, the floor or a blend of the two at the horizon line),
     * as the mean and the 98th percentile (levels, summed over RGB).
     */
    function look(rgb: Buffer) {
      const blue = new Uint8Array(W * H);
      let [x0, y0, x1, y1] = [W, H, -1, -1];
      for (let i = 0; i < W * H; i++) {
        const [r, g, b] = [rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!];
        if (b - r > 60 && b - g > 40) {
          blue[i] = 1;
          const x = i % W;
          const y = (i - x) / W;
          [x0, y0, x1, y1] = [Math.min(x0, x), Math.min(y0, y), Math.max(x1, x), Math.max(y1, y)];
        }
      }
      const near = (r: number, i: number) => {
        const x = i % W;
        const y = (i - x) / W;
        for (let dy = -r; dy <= r; dy++) {
          for (let dx = -r; dx <= r; dx++) {
            const X = x + dx;
            const Y = y + dy;
            if (X >= 0 && Y >= 0 && X < W && Y < H && blue[Y * W + X]) return true;
          }
        }
        return false;
      };
      const off: number[] = [];
      for (let i = 0; i < W * H; i++) {
        if (blue[i] || !near(8, i) || near(2, i)) continue;
        // Distance from the segment wall–floor in RGB.
        const p = [rgb[i * 3]!, rgb[i * 3 + 1]!, rgb[i * 3 + 2]!];
        const d = FLOOR.map((f, c) => f - WALL[c]!);
        const t = Math.min(
          1,
          Math.max(0, p.reduce((s, v, c) => s + (v - WALL[c]!) * d[c]!, 0) / d.reduce((s, v) => s + v * v, 0)),
        );
        off.push(p.reduce((s, v, c) => s + Math.abs(v - (WALL[c]! + t * d[c]!)), 0));
      }
      off.sort((a, b) => a - b);
      return {
        box: { x0, y0, x1, y1 },
        mean: off.reduce((s, v) => s + v, 0) / Math.max(1, off.length),
        p98: off[Math.floor(off.length * 0.98)] ?? 0,
      };
    }

    it('films a 1:1 scene at 16:9 with no smear around the product, and the product whole in every frame', async () => {
      const { png, layers } = await layered();
      for (const prompt of ['slow push in', 'orbit around it', 'pan left']) {
        const r = await engine.generate({
          prompt,
          width: W,
          height: H,
          durationSeconds: 1,
          seed: 2,
          startFrame: png,
          startFrameLayers: layers,
        });
        expect(r.warnings.map((w) => w.code)).toEqual(['BACKDROP_EXTENDED']);
        for (const f of await frames(await save(r, 'layered.mp4'))) {
          const { box, mean, p98 } = look(f);
          expect(box.x0, prompt).toBeGreaterThan(0);
          expect(box.y0, prompt).toBeGreaterThan(0);
          expect(box.x1, prompt).toBeLessThan(W - 1);
          expect(box.y1, prompt).toBeLessThan(H - 1);
          // Coding noise only (a smear measures 30 and more, below).
          expect(mean, prompt).toBeLessThan(10);
          expect(p98, prompt).toBeLessThan(32);
        }
      }
    }, 60_000);

    it('the measure sees a smear: a pale halo left around the product in the plate', async () => {
      const { png, layers } = await layered(true);
      const r = await engine.generate({
        prompt: 'orbit',
        width: W,
        height: H,
        durationSeconds: 1,
        seed: 2,
        startFrame: png,
        startFrameLayers: layers,
      });
      const seen = (await frames(await save(r, 'halo.mp4'))).map(look);
      expect(Math.min(...seen.map((s) => s.mean))).toBeGreaterThan(20);
    }, 30_000);

    it('ignores layers that do not match the start frame (the matte path instead)', async () => {
      const { png, layers } = await layered();
      // A plate of another size (and red: were it used, the film would be red).
      const small = await sharp({ create: { width: 100, height: 100, channels: 3, background: '#d01010' } })
        .png()
        .toBuffer();
      const r = await engine.generate({
        prompt: 'orbit',
        width: W,
        height: H,
        durationSeconds: 1,
        seed: 2,
        startFrame: png,
        startFrameLayers: { ...layers, plate: small },
      });
      const file = await save(r, 'mismatch.mp4');
      await expectClip(file, 1, false);
      for (const f of await frames(file)) {
        let red = 0;
        for (let i = 0; i < W * H; i++) if (f[i * 3]! > 180 && f[i * 3 + 1]! < 80) red++;
        expect(red).toBe(0);
      }
    }, 30_000);
  });

  it('crossfades through intermediate frames to the end frame, with an audio bed when asked', async () => {
    const start = await scene('#ece6dc', '#2a6f97');
    const end = await scene('#1d2b3a', '#e8c547');
    const r = await engine.generate({
      prompt: 'product reveal',
      width: W,
      height: H,
      durationSeconds: 2,
      seed: 4,
      startFrame: start,
      intermediateFrames: [await scene('#8a5a44', '#ffffff')],
      endFrame: end,
      enableAudio: true,
    });
    const file = await save(r, 'xfade.mp4');
    await expectClip(file, 2, true);
    const endSmall = await sharp(end).resize(32, 18, { fit: 'fill' }).removeAlpha().raw().toBuffer();
    const startSmall = await sharp(start).resize(32, 18, { fit: 'fill' }).removeAlpha().raw().toBuffer();
    expect(meanDiff(await frame(file, 59), endSmall)).toBeLessThan(8); // settles on the end frame
    expect(meanDiff(await frame(file, 0), startSmall)).toBeLessThan(8);
    expect(meanDiff(await frame(file, 0), await frame(file, 59))).toBeGreaterThan(30);
  }, 30_000);

  it('makes a montage of image and video references; a text-only request gets a gradient and a warning', async () => {
    const clip = await engine.generate({
      prompt: 'pan left',
      width: W,
      height: H,
      durationSeconds: 1,
      seed: 2,
      startFrame: await scene('#ddd', '#a33'),
    });
    const r = await engine.generate({
      prompt: 'montage',
      width: W,
      height: H,
      durationSeconds: 2,
      seed: 3,
      references: [
        { kind: 'image', bytes: await scene('#f4efe6', '#333') },
        { kind: 'video', bytes: clip.mp4 },
      ],
    });
    expect(r.camera?.move).toBe('montage');
    await expectClip(await save(r, 'montage.mp4'), 2, false);

    const t = await engine.generate({ prompt: 'a calm mood', width: W, height: H, durationSeconds: 1, seed: 9 });
    expect(t.warnings.map((w) => w.code)).toContain('TEXT_ONLY_BACKDROP');
    await expectClip(await save(t, 'text.mp4'), 1, false);
  }, 40_000);

  it('stages a bare product photo on a backdrop first (no black, nothing cut off), with a warning', async () => {
    const bottles = await fs.readFile(
      path.resolve(import.meta.dirname, '../../../../../shared/fixtures/product-images/solidus_bottles_1.png'),
    );
    const r = await engine.generate({
      prompt: 'Slow push-in',
      width: W,
      height: H,
      durationSeconds: 1,
      startFrame: bottles,
      seed: 3,
    });
    expect(r.warnings.map((w) => w.code)).toContain('START_FRAME_STAGED');
    const file = await save(r, 'staged.mp4');
    const first = await frame(file, 0);
    // The corners (the set, where the photo was transparent) are light, not black.
    for (const [x, y] of [
      [0, 0],
      [31, 0],
      [0, 17],
      [31, 17],
    ] as const) {
      const i = (y * 32 + x) * 3;
      expect((first[i]! + first[i + 1]! + first[i + 2]!) / 3).toBeGreaterThan(120);
    }
  });

  it('refuses bad requests clearly and honours an abort', async () => {
    const base = { prompt: 'x', width: W, height: H, durationSeconds: 1, seed: 1 };
    await expect(engine.generate({ ...base, width: 321 })).rejects.toThrow(GenerationError);
    await expect(engine.generate({ ...base, durationSeconds: 0 })).rejects.toThrow(/duration/);
    await expect(engine.generate({ ...base, fps: 0 })).rejects.toThrow(/frame rate/);
    await expect(
      engine.generate({ ...base, references: [{ kind: 'image', path: path.join(dir, 'missing.png') }] }),
    ).rejects.toThrow(GenerationError);
    const ac = new AbortController();
    ac.abort();
    await expect(engine.generate({ ...base, signal: ac.signal })).rejects.toThrow(/abort/i);
    // The aborted run's temp folder is removed: an engine of its own, with its own temp root (the
    // OS's is shared with every test file running meanwhile).
    const tmpRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'atelier-abort-'));
    try {
      const late = new AbortController();
      const p = createLocalVideoEngine({ tmpRoot }).generate({
        ...base,
        durationSeconds: 3,
        startFrame: await scene('#eee', '#123'),
        signal: late.signal,
      });
      setTimeout(() => late.abort(), 50);
      await expect(p).rejects.toThrow(/abort/i);
      expect(await fs.readdir(tmpRoot)).toEqual([]);
    } finally {
      await fs.rm(tmpRoot, { recursive: true, force: true });
    }
  }, 30_000);
});
