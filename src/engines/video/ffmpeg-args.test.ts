import { inputUrl } from '../../adapters/media/video-args.ts';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { planCamera } from './camera.ts';
import { layerGeometry, sampleLayer, layerKeys } from './framing.ts';
import {
  clipWindowStart,
  audioBedFilters,
  crossfadeFilters,
  easeExpr,
  encodeArgs,
  keyExpr,
  FOREGROUND_MAX_SUPERSAMPLE,
  frameLayer,
  layerCanvas,
  layerFilters,
  num,
  previewFilter,
  type RenderSpec,
  renderArgs,
  segmentFrames,
  segmentStarts,
  supersample,
  videoSegmentFilter,
  zoompanFilter,
} from './ffmpeg-args.ts';

/** Evaluates the small subset of ffmpeg's expression language the builders emit. */
function evalExpr(expr: string, vars: Record<string, number>): number {
  const js = expr
    .replace(/\bPI\b/g, 'Math.PI')
    .replace(/\bcos\(/g, 'Math.cos(')
    .replace(/\bclip\(/g, '((v,a,b)=>Math.min(b,Math.max(a,v)))(')
    .replace(/\blt\(/g, '((a,b)=>a<b?1:0)(')
    .replace(/\bif\(/g, '((c,a,b)=>c?a:b)(');
  return new Function(...Object.keys(vars), `return ${js};`)(...Object.values(vars)) as number;
}

const spec = (over: Partial<RenderSpec> = {}): RenderSpec => ({
  width: 320,
  height: 180,
  fps: 30,
  frames: 45,
  segments: [
    {
      kind: 'still',
      layers: [frameLayer('/tmp/a.png', 320, 180)],
      plan: planCamera('push-in'),
      frames: 45,
    },
  ],
  crossfadeFrames: 0,
  output: '/tmp/out.mp4',
  ...over,
});

describe('numbers and expressions', () => {
  it('formats numbers plainly', () => {
    expect(num(1)).toBe('1');
    expect(num(1.5)).toBe('1.5');
    expect(num(-0.0000001)).toBe('0');
    expect(num(1e-7)).toBe('0');
    expect(num(2 / 3)).toBe('0.666667');
    expect(() => num(Number.NaN)).toThrow();
  });

  it('ease-in-out as an expression matches the camera module', () => {
    const plan = planCamera('pan-right');
    const e = keyExpr(plan, (k) => k.x, 'u');
    for (const u of [0, 0.1, 0.5, 0.9, 1]) {
      const expected = plan.keys[0]!.x + (plan.keys[1]!.x - plan.keys[0]!.x) * (0.5 - 0.5 * Math.cos(Math.PI * u));
      expect(evalExpr(e, { u })).toBeCloseTo(expected, 5);
    }
    expect(easeExpr('linear', 'u')).toBe('clip(u,0,1)');
    expect(keyExpr(plan, (k) => k.zoom, 'u')).toBe(num(plan.keys[0]!.zoom)); // constant → a number
  });

  it('piecewise expressions for more than two keys', () => {
    const plan = {
      move: 'push-in' as const,
      easing: 'linear' as const,
      keys: [
        { at: 0, zoom: 1, x: 0, y: 0, parallax: 0 },
        { at: 0.5, zoom: 1.2, x: 0, y: 0, parallax: 0 },
        { at: 1, zoom: 1.1, x: 0, y: 0, parallax: 0 },
      ],
    };
    const e = keyExpr(plan, (k) => k.zoom, 'u');
    expect(evalExpr(e, { u: 0.25 })).toBeCloseTo(1.1, 5);
    expect(evalExpr(e, { u: 0.75 })).toBeCloseTo(1.15, 5);
  });
});

describe('zoompan', () => {
  const out = { width: 1280, height: 720, fps: 30, frames: 150 };
  const zp = (f: string) => ({
    z: /z='([^']+)'/.exec(f)![1]!,
    x: /:x='([^']+)'/.exec(f)![1]!,
    y: /:y='([^']+)'/.exec(f)![1]!,
  });

  it('keeps the backdrop window inside its supersampled canvas (no border) for every move and frame', () => {
    for (const move of ['push-in', 'pan-left', 'pan-right', 'tilt-up', 'crane', 'dolly', 'orbit'] as const) {
      const layer = frameLayer('/tmp/a.png', 1280, 720);
      const f = zoompanFilter(planCamera(move), layer, out);
      const { z, x, y } = zp(f);
      const { width: iw, height: ih } = layerCanvas(1280, 720, layer);
      for (let on = 0; on < 150; on += 7) {
        const zoom = evalExpr(z, { on });
        const px = evalExpr(x, { on, iw, zoom });
        const py = evalExpr(y, { on, ih, zoom });
        expect(zoom).toBeGreaterThanOrEqual(1);
        expect(px).toBeGreaterThanOrEqual(-1e-6);
        expect(py).toBeGreaterThanOrEqual(-1e-6);
        expect(px + iw / zoom).toBeLessThanOrEqual(iw + 1e-6);
        expect(py + ih / zoom).toBeLessThanOrEqual(ih + 1e-6);
      }
      expect(f).toMatch(/:d=150:s=1280x720:fps=30$/);
    }
  });

  it('a layer over part of the frame shows, at its place, the picture its depth’s camera sees there', () => {
    const plan = planCamera('pan-right');
    const content = { left: 500, top: 300, width: 200, height: 300 };
    const g = layerGeometry(plan, 1, 1280, 720, content)!;
    const layer = { depth: 1, alpha: true, window: g.window, place: g.place };
    const { z, x, y } = zp(zoompanFilter(plan, layer, out));
    const { width: iw, height: ih } = layerCanvas(1280, 720, layer);
    const keys = layerKeys(plan, 1, 1280, 720);
    for (const on of [0, 40, 75, 149]) {
      const zoom = evalExpr(z, { on });
      const px = evalExpr(x, { on, iw, zoom });
      const py = evalExpr(y, { on, ih, zoom });
      // Inside the canvas…
      expect(zoom).toBeGreaterThanOrEqual(1);
      expect(px).toBeGreaterThanOrEqual(-1e-6);
      expect(px + iw / zoom).toBeLessThanOrEqual(iw + 1e-6);
      expect(py + ih / zoom).toBeLessThanOrEqual(ih + 1e-6);
      // …and the picture point at the place's corner is where that layer's camera puts it.
      const v = sampleLayer(keys, plan.easing, on / 149);
      const pictureX = g.window.left + (px * g.window.width) / iw;
      const pictureY = g.window.top + (py * g.window.height) / ih;
      expect(pictureX).toBeCloseTo(v.cx + (g.place.left - 640) / v.zoom, 6);
      expect(pictureY).toBeCloseTo(v.cy + (g.place.top - 360) / v.zoom, 6);
      // The window spans the place at the layer's zoom.
      expect(((iw / zoom) * g.window.width) / iw).toBeCloseTo(g.place.width / v.zoom, 3);
    }
    expect(zoompanFilter(plan, layer, out)).toMatch(new RegExp(`:s=${g.place.width}x${g.place.height}:`));
  });

  it('the product grows faster than the backdrop on a push-in (parallax > 0)', () => {
    const plan = planCamera('push-in');
    const whole = frameLayer('/tmp/a.png', 1280, 720);
    const back = zp(zoompanFilter(plan, whole, out)).z;
    const front = zp(zoompanFilter(plan, { ...whole, depth: 1 }, out)).z;
    expect(evalExpr(front, { on: 0 })).toBeCloseTo(1, 6);
    expect(evalExpr(front, { on: 149 })).toBeGreaterThan(evalExpr(back, { on: 149 }));
  });

  it('supersamples to ~8 MP: ~2.9× at 720p, up to 4×, at least 1×; alpha layers at most 2.2×', () => {
    expect(supersample(1280, 720)).toBeCloseTo(2.95, 2);
    expect(supersample(320, 180)).toBe(4);
    expect(supersample(3840, 2160)).toBe(1);
    expect(supersample(7680, 4320)).toBe(1);
    expect(supersample(1920, 1080)).toBeCloseTo(1.96, 2);
    expect(layerCanvas(320, 180, frameLayer('/tmp/a.png', 320, 180))).toEqual({ k: 4, width: 1280, height: 720 });
    const fg = layerCanvas(1280, 720, { alpha: true, window: { left: 0, top: 0, width: 400, height: 300 } });
    expect(fg).toEqual({ k: FOREGROUND_MAX_SUPERSAMPLE, width: 880, height: 660 });
  });

  it('layer filters: cropped to the window, 4:4:4 (with alpha), lanczos to K×, one spare frame, exact length', () => {
    const plan = planCamera('orbit');
    const out = { width: 320, height: 180, fps: 30, frames: 45 };
    const bg = layerFilters(plan, frameLayer('/tmp/a.png', 320, 180), out);
    expect(bg.crop).toBe('crop=320:180:0:0,format=yuv444p');
    expect(bg.move).toMatch(/^scale=1280:720:flags=lanczos,zoompan=z='1\*/);
    expect(bg.move).toMatch(/:d=46:s=320x180:fps=30,fps=30,trim=end_frame=45,setsar=1$/);
    const fg = layerFilters(
      plan,
      {
        alpha: true,
        depth: 1,
        origin: { x: 100, y: 40 },
        window: { left: 110, top: 50, width: 100, height: 80 },
        place: { left: 120, top: 60, width: 100, height: 80 },
      },
      out,
    );
    expect(fg.crop).toBe('crop=100:80:10:10,format=yuva444p');
    expect(fg.move).toMatch(/^scale=220:176:flags=lanczos,zoompan=/);
    expect(fg.move).toContain(':s=100x80:');
  });
});

describe('segments and crossfades', () => {
  it('segment lengths fill the clip exactly with overlaps', () => {
    for (const [total, count, overlap] of [
      [150, 3, 24],
      [45, 2, 10],
      [31, 4, 3],
      [60, 1, 0],
    ] as const) {
      const frames = segmentFrames(total, count, overlap);
      expect(frames).toHaveLength(count);
      const starts = segmentStarts(frames, overlap);
      expect(starts[0]).toBe(0);
      expect(starts.at(-1)! + frames.at(-1)!).toBe(total);
    }
  });

  it('fades each next segment in with alpha at its start, over the held first one', () => {
    const parts = crossfadeFilters([0, 20, 40], 10, 30, 60);
    expect(parts[0]).toBe('[s0]tpad=stop_mode=clone:stop=60,trim=end_frame=60[c0]');
    expect(parts[1]).toBe('[s1]format=yuva420p,fade=t=in:st=0:d=0.333333:alpha=1,setpts=PTS-STARTPTS+0.666667/TB[f1]');
    expect(parts[2]).toBe('[c0][f1]overlay=x=0:y=0:eof_action=repeat:format=yuv420[c1]');
    expect(parts.at(-1)).toBe('[c2]trim=end_frame=60,setpts=PTS-STARTPTS[vcat]');
    expect(crossfadeFilters([0], 0, 30, 60)).toEqual(['[s0]trim=end_frame=60,setpts=PTS-STARTPTS[vcat]']);
  });

  it('video references cover the frame, run at the clip fps and exact length', () => {
    expect(videoSegmentFilter(2, 40, { width: 320, height: 180, fps: 24 })).toBe(
      '[2:v:0]scale=320:180:force_original_aspect_ratio=increase:flags=bicubic,crop=320:180,setsar=1,fps=24,' +
        'tpad=stop_mode=clone:stop=40,trim=end_frame=40,setpts=PTS-STARTPTS',
    );
  });
});

describe('audio bed', () => {
  it('is a seeded pad of the exact length, faded in and out', () => {
    const a = audioBedFilters(5, 4);
    expect(a.join(';')).toEqual(audioBedFilters(5, 4).join(';'));
    expect(a[0]).toMatch(/^aevalsrc='.+\|.+':s=48000:d=4:c=stereo\[apad\]$/);
    expect(a[2]).toContain('afade=t=in:st=0:d=1.2');
    expect(a[2]).toContain('afade=t=out:st=2.666667:d=1.333333');
    expect(a[2]).toMatch(/atrim=0:4,.*\[aout\]$/);
    const roots = new Set(
      Array.from({ length: 20 }, (_, s) => /sin\(2\*PI\*([\d.]+)\*t\)\+/.exec(audioBedFilters(s, 4)[0]!)?.[0]),
    );
    expect(roots.size).toBeGreaterThan(2);
  });
});

describe('renderArgs', () => {
  it('guards inputs, maps video (and audio only when asked), encodes H.264 yuv420p faststart', () => {
    const args = renderArgs(spec());
    expect(args.slice(args.indexOf('-i') - 4, args.indexOf('-i') + 2)).toEqual([
      '-protocol_whitelist',
      'file',
      '-f',
      'png_pipe',
      '-i',
      `file:${path.resolve('/tmp/a.png')}`,
    ]);
    const graph = args[args.indexOf('-filter_complex') + 1]!;
    expect(graph).toContain('[0:v:0]crop=320:180:0:0,format=yuv444p,scale=1280:720:flags=lanczos,zoompan=');
    expect(graph).toContain('[vcat]null[vmain]');
    expect(args).toContain('-an');
    expect(args).not.toContain('[aout]');
    for (const [k, v] of [
      ['-c:v', 'libx264'],
      ['-pix_fmt', 'yuv420p'],
      ['-movflags', '+faststart'],
      ['-r', '30'],
    ]) {
      expect(args[args.indexOf(k!) + 1]).toBe(v);
    }
    expect(args.at(-1)).toBe(inputUrl('/tmp/out.mp4'));

    const withAudio = renderArgs(spec({ audio: { seed: 3 } }));
    expect(withAudio.slice(withAudio.indexOf('-map'), withAudio.indexOf('-map') + 4)).toEqual([
      '-map',
      '[vmain]',
      '-map',
      '[aout]',
    ]);
    expect(withAudio[withAudio.indexOf('-c:a') + 1]).toBe('aac');
    expect(encodeArgs(spec({ audio: { seed: 3 } }))).not.toContain('-frames:v');
  });

  it('depth layers: each zoompan overlaid at its place, a floor band taking its alpha from a ramp', () => {
    const plate = { path: '/tmp/plate.png', alpha: false, depth: 0, origin: { x: -10, y: -10 } };
    const args = renderArgs(
      spec({
        segments: [
          {
            kind: 'still',
            layers: [
              {
                ...plate,
                window: { left: 0, top: 0, width: 320, height: 180 },
                place: { left: 0, top: 0, width: 320, height: 180 },
              },
              {
                ...plate,
                alpha: true,
                depth: 0.5,
                window: { left: -4, top: 100, width: 330, height: 90 },
                place: { left: 0, top: 100, width: 320, height: 80 },
                ramp: '/tmp/band.png',
              },
              {
                path: '/tmp/product.png',
                alpha: true,
                depth: 1,
                origin: { x: 100, y: 40 },
                window: { left: 100, top: 40, width: 120, height: 100 },
                place: { left: 90, top: 30, width: 120, height: 100 },
              },
            ],
            plan: planCamera('orbit'),
            frames: 45,
          },
        ],
      }),
    );
    const graph = args[args.indexOf('-filter_complex') + 1]!;
    expect(args.filter((a) => a.startsWith('file:'))).toEqual(
      ['/tmp/plate.png', '/tmp/plate.png', '/tmp/band.png', '/tmp/product.png', '/tmp/out.mp4'].map(inputUrl),
    );
    expect(graph).toContain('[0:v:0]crop=320:180:10:10,format=yuv444p,scale=1280:720:flags=lanczos,zoompan=');
    expect(graph).toContain('[2:v:0]scale=330:90:flags=bilinear,format=gray[rl0_1]');
    expect(graph).toContain('[1:v:0]crop=330:90:6:110,format=yuva444p[cl0_1]');
    expect(graph).toContain('[cl0_1][rl0_1]alphamerge,scale=');
    expect(graph).toContain('[l0_0][l0_1]overlay=x=0:y=100:format=yuv444:eof_action=repeat[m0_1]');
    expect(graph).toContain('[m0_1][l0_2]overlay=x=90:y=30:format=yuv444:eof_action=repeat[s0p]');
  });

  it('refuses a still whose first layer does not cover the frame', () => {
    const layer = { ...frameLayer('/tmp/a.png', 320, 180), place: { left: 0, top: 0, width: 100, height: 180 } };
    expect(() =>
      renderArgs(spec({ segments: [{ kind: 'still', layers: [layer], plan: planCamera('static'), frames: 45 }] })),
    ).toThrow(RangeError);
  });

  it('montage: videos are looped, opened as MP4/QuickTime from a file only', () => {
    const args = renderArgs(
      spec({
        segments: [
          { kind: 'video', path: 'clip.mp4', frames: 25 },
          {
            kind: 'still',
            layers: [frameLayer('/tmp/b.png', 320, 180)],
            plan: planCamera('pan-left'),
            frames: 25,
          },
        ],
        crossfadeFrames: 5,
      }),
    );
    const i = args.indexOf(`file:${path.resolve('clip.mp4')}`);
    expect(args.slice(i - 7, i)).toEqual(['-stream_loop', '-1', '-protocol_whitelist', 'file', '-f', 'mov', '-i']);
    expect(args[args.indexOf('-filter_complex') + 1]).toContain('[s1]format=yuva420p,fade=t=in');
  });

  it('preview: the whole clip sped up to ≤ maxSeconds, small, no audio', () => {
    expect(previewFilter(6, { output: 'p.mp4', width: 320, maxSeconds: 3, fps: 15 }, 720, 1280)).toBe(
      '[vprev0]setpts=0.5*PTS,fps=15,scale=320:180:flags=area,format=yuv420p[vprev]',
    );
    const args = renderArgs(spec({ preview: { output: '/tmp/p.mp4', width: 320, maxSeconds: 3, fps: 15 } }));
    const p = args.lastIndexOf('-map');
    expect(args.slice(p, p + 3)).toEqual(['-map', '[vprev]', '-an']);
    expect(args.at(-1)).toBe(inputUrl('/tmp/p.mp4'));
  });

  it('refuses odd sizes and empty clips', () => {
    expect(() => renderArgs(spec({ width: 321 }))).toThrow(/even/);
    expect(() => renderArgs(spec({ segments: [] }))).toThrow();
    expect(() => renderArgs(spec({ frames: 0 }))).toThrow();
  });
});

describe('clipWindowStart', () => {
  it('cuts the middle of a longer clip and the start of a short one', () => {
    expect(clipWindowStart(30, 2)).toBe(14);
    expect(clipWindowStart(2.5, 2)).toBe(0.25);
    expect(clipWindowStart(2, 2)).toBe(0);
    expect(clipWindowStart(1, 2)).toBe(0);
    expect(clipWindowStart(undefined, 2)).toBe(0);
    expect(clipWindowStart(Number.NaN, 2)).toBe(0);
  });
  it('seeks the input before opening it', () => {
    const args = renderArgs({
      width: 320,
      height: 180,
      fps: 30,
      frames: 60,
      segments: [{ kind: 'video', path: '/tmp/clip.mp4', frames: 60, startSeconds: 14 }],
      crossfadeFrames: 0,
      output: '/tmp/out.mp4',
    });
    const i = args.indexOf('-ss');
    expect(args[i + 1]).toBe('14');
    expect(args.indexOf('-i')).toBeGreaterThan(i);
  });
});
