import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MediaError } from './media-error.ts';
import { ffprobeArgs, inputUrl, parseFrameRate, parseProbe, posterArgs, posterTime, rotationOf } from './video-args.ts';

describe('argument lists', () => {
  it('open the input as a local file only, with the MP4/QuickTime demuxer forced', () => {
    const args = ffprobeArgs('clip.mp4');
    expect(args).toEqual([
      '-v',
      'error',
      '-protocol_whitelist',
      'file',
      '-f',
      'mov',
      '-print_format',
      'json',
      '-show_format',
      '-show_streams',
      `file:${path.resolve('clip.mp4')}`,
    ]);
  });

  it('keep a hostile file name one argument, never a URL or an option', () => {
    for (const name of ['-i http://evil/x', 'concat:/etc/passwd|a.mp4', 'http://169.254.169.254/', '; rm -rf /']) {
      const url = inputUrl(name);
      expect(url.startsWith(`file:${path.sep}`)).toBe(true);
      expect(ffprobeArgs(name).at(-1)).toBe(url);
      expect(posterArgs(name, 1, 512)).toContain(url);
    }
  });

  it('poster: seek before the input, one autorotated frame, scaled down only, PNG on stdout', () => {
    const args = posterArgs('/tmp/v.mov', 1.23456, 512);
    expect(args.indexOf('-ss')).toBeLessThan(args.indexOf('-i'));
    expect(args[args.indexOf('-ss') + 1]).toBe('1.235');
    expect(args[args.indexOf('-vf') + 1]).toBe(
      'scale=w=min(512\\,iw):h=min(512\\,ih):force_original_aspect_ratio=decrease',
    );
    expect(args.slice(-5)).toEqual(['-f', 'image2pipe', '-c:v', 'png', 'pipe:1']);
    expect(args).toEqual(expect.arrayContaining(['-frames:v', '1', '-nostdin', '-protocol_whitelist', 'file']));
  });
});

describe('posterTime', () => {
  it.each([
    [30, 3],
    [10, 1],
    [0.04, 0],
    [0.2, 0.02],
    [undefined, 0],
    [0, 0],
    [Number.NaN, 0],
  ])('duration %s → %s', (duration, at) => {
    expect(posterTime(duration)).toBeCloseTo(at, 6);
  });

  it('stays inside the video', () => {
    fc.assert(
      fc.property(fc.double({ min: 0.001, max: 1e6, noNaN: true }), (d) => {
        const t = posterTime(d);
        expect(t).toBeGreaterThanOrEqual(0);
        expect(t).toBeLessThan(d);
      }),
    );
  });
});

describe('parseFrameRate', () => {
  it.each([
    ['24/1', 24],
    ['30000/1001', 29.97],
    ['25', 25],
    ['0/0', undefined],
    ['1/0', undefined],
    ['-24/1', undefined],
    ['abc', undefined],
    [undefined, undefined],
    [24, undefined],
  ])('%j → %s', (rate, fps) => {
    expect(parseFrameRate(rate)).toBe(fps);
  });
});

describe('rotationOf', () => {
  it.each([
    [{}, 0],
    [{ side_data_list: [{ rotation: -90 }] }, 90],
    [{ side_data_list: [{ rotation: 90 }] }, 270],
    [{ side_data_list: [{ rotation: 180 }] }, 180],
    [{ side_data_list: [{ rotation: -180 }] }, 180],
    [{ side_data_list: [{}, { rotation: -270 }] }, 270],
    [{ tags: { rotate: '90' } }, 90],
    [{ tags: { rotate: 'sideways' } }, 0],
    [{ side_data_list: [{ rotation: -89.9 }] }, 90],
  ])('%j → %i', (stream, degrees) => {
    expect(rotationOf(stream)).toBe(degrees);
  });
});

describe('parseProbe', () => {
  const probe = (streams: unknown[], format: unknown = { duration: '30.0', bit_rate: '1000000' }) =>
    JSON.stringify({ streams, format });
  const video = {
    codec_type: 'video',
    codec_name: 'h264',
    width: 854,
    height: 480,
    avg_frame_rate: '24/1',
    nb_frames: '720',
  };

  it('reads size, rate, duration, codecs', () => {
    expect(parseProbe(probe([video, { codec_type: 'audio', codec_name: 'aac' }]))).toEqual({
      durationSeconds: 30,
      fps: 24,
      width: 854,
      height: 480,
      rotation: 0,
      videoCodec: 'h264',
      audioCodec: 'aac',
      bitRate: 1_000_000,
      frameCount: 720,
    });
  });

  it('swaps the displayed size of a portrait phone video and falls back to stream values', () => {
    const phone = {
      ...video,
      width: 1920,
      height: 1080,
      avg_frame_rate: '0/0',
      r_frame_rate: '30/1',
      duration: '12.5',
      side_data_list: [{ rotation: -90 }],
    };
    expect(parseProbe(probe([phone], {}))).toMatchObject({
      width: 1080,
      height: 1920,
      rotation: 90,
      fps: 30,
      durationSeconds: 12.5,
    });
  });

  it('skips cover art and omits what is unknown', () => {
    const cover = {
      codec_type: 'video',
      codec_name: 'mjpeg',
      width: 600,
      height: 600,
      disposition: { attached_pic: 1 },
    };
    const r = parseProbe(probe([cover, { codec_type: 'video', width: 640, height: 360 }], {}));
    expect(r).toEqual({ width: 640, height: 360, rotation: 0, videoCodec: 'unknown' });
  });

  it.each([
    ['not json', 'CORRUPT'],
    [probe([]), 'CORRUPT'],
    [probe([{ codec_type: 'audio', codec_name: 'aac' }]), 'UNSUPPORTED'],
    [probe([{ codec_type: 'video', width: 0, height: 480 }]), 'CORRUPT'],
    ['null', 'CORRUPT'],
  ])('%s → %s', (raw, code) => {
    expect(() => parseProbe(raw)).toThrow(expect.objectContaining({ code }));
  });

  it('only ever throws MediaError on arbitrary JSON', () => {
    fc.assert(
      fc.property(fc.json(), (raw) => {
        try {
          parseProbe(raw);
        } catch (err) {
          expect(err).toBeInstanceOf(MediaError);
        }
      }),
    );
  });
});
