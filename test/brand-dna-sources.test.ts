import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import ffmpegInstaller from '@ffmpeg-installer/ffmpeg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deltaEHex } from '../src/modules/brand-dna/color.ts';
import { BRANDS } from './fixtures/brands/brands.ts';
import { buildDocx, buildFont, tempDir } from './fixtures/media/generate.ts';
import { createTestApp, dbKinds, type TestApp } from './helpers/app.ts';
import { eventually } from './helpers/assets.ts';
import { createBrand, uploadCompleteAssets } from './helpers/upload.ts';

/** Trailhead Outfitters: forest green, orange, deep blue; Oswald / Source Sans Pro. */
const B = BRANDS.find((b) => b.slug === 'trailhead')!;
const [GREEN, ORANGE] = B.truth.palette;

/** Two seconds of a green field with an orange block, H.264 in MP4. */
function brandVideo(file: string): Buffer {
  execFileSync(
    ffmpegInstaller.path,
    [
      '-hide_banner',
      '-v',
      'error',
      '-y',
      '-f',
      'lavfi',
      '-i',
      `color=c=0x${GREEN.slice(1)}:s=160x120:d=2:r=12`,
      '-vf',
      `drawbox=x=40:y=30:w=60:h=50:color=0x${ORANGE.slice(1)}:t=fill`,
      '-c:v',
      'libx264',
      '-preset',
      'ultrafast',
      '-pix_fmt',
      'yuv420p',
      file,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'], timeout: 60_000 },
  );
  return fs.readFileSync(file);
}

describe.each(dbKinds())('Brand DNA from videos, fonts and Word documents (%s)', (kind) => {
  let t: TestApp;
  let key: string;
  let brandId: string;
  let ids: { video: string; heading: string; body: string; docx: string };
  const tmp = tempDir('atelier-dna-');

  const run = async (assetIds: string[]) => {
    const res = await t.request({
      method: 'POST',
      url: `/v1/brands/${brandId}/brand-dna/versions`,
      key,
      payload: { assetIds },
    });
    expect(res.statusCode, res.body).toBe(200);
    const id = res.json().data.versionId;
    return eventually(
      async () => {
        const v = (
          await t.request({ method: 'GET', url: `/v1/brands/${brandId}/brand-dna/versions/${id}`, key })
        ).json().data;
        return v.status === 'ready' || v.status === 'failed' ? v : undefined;
      },
      'the version to finish',
      90_000,
      200,
    );
  };

  beforeAll(async () => {
    t = await createTestApp(kind);
    key = (await t.bootstrap()).apiKey;
    await t.deps.startWorkers();
    brandId = await createBrand(t, key, B.name);
    const docx = buildDocx([
      `${B.name} Brand Guidelines`,
      'Our mission',
      B.mission,
      'Tone of voice',
      B.voice,
      'Words to avoid: synergy, leverage, utilize',
      'Colour palette',
      `Primary colour - Forest HEX ${GREEN.toUpperCase()}`,
      `Secondary colour - Ember RGB ${[1, 3, 5].map((i) => Number.parseInt(ORANGE.slice(i, i + 2), 16)).join(' ')}`,
    ]);
    const [video, heading, body, doc] = await uploadCompleteAssets(t, key, brandId, [
      { name: 'spot.mp4', type: 'video/mp4', bytes: brandVideo(tmp.file('spot.mp4')) },
      { name: 'Oswald-Bold.ttf', type: 'font/ttf', bytes: buildFont({ family: 'Oswald', style: 'Bold', weight: 700 }) },
      {
        name: 'SourceSansPro-Regular.otf',
        type: 'font/otf',
        bytes: buildFont({ family: 'Source Sans Pro', style: 'Regular', weight: 400, otf: true }),
      },
      {
        name: 'guidelines.docx',
        type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        bytes: docx,
      },
    ]);
    ids = { video: video!, heading: heading!, body: body!, docx: doc! };
  });
  afterAll(async () => {
    await t?.close();
    tmp.cleanup();
  });

  it('samples video frames for the palette', async () => {
    const v = await run([ids.video]);
    expect(v.status, JSON.stringify(v.sources)).toBe('ready');
    expect(v.sources[0]).toMatchObject({ type: 'video', status: 'completed', assetId: ids.video });
    const [first, second] = v.dna.visual.palette;
    expect(deltaEHex(first.hex, GREEN)).toBeLessThan(10);
    expect(deltaEHex(second.hex, ORANGE)).toBeLessThan(10);
    expect(v.preview.sourceCounts).toEqual({ pdf: 0, image: 0, video: 1, url: 0, font: 0, document: 0 });
    expect(v.missingFields).toEqual(expect.arrayContaining(['visual.typography.heading', 'voice.tone']));
  });

  it('reads typography from font files and the voice and stated colours from a Word document', async () => {
    const v = await run([ids.video, ids.heading, ids.body, ids.docx]);
    expect(v.status, JSON.stringify(v.sources)).toBe('ready');
    expect(v.sources.map((s: { type: string }) => s.type)).toEqual(['video', 'font', 'font', 'document']);
    const { heading, body } = v.dna.visual.typography;
    expect(heading).toMatchObject({ family: 'Oswald', weights: [700] });
    expect(body).toMatchObject({ family: 'Source Sans Pro', weights: [400] });
    const [primary, secondary] = v.dna.visual.palette;
    expect(primary).toMatchObject({ hex: GREEN, role: 'primary', name: 'Primary colour - Forest' });
    expect(primary.sources).toHaveLength(2); // the document states it, the video shows it
    expect(secondary).toMatchObject({ hex: ORANGE, role: 'secondary' });
    expect(v.dna.identity.mission.value).toBe(B.mission);
    expect(v.dna.voice.words_to_avoid.map((w: { value: string }) => w.value)).toEqual([
      'synergy',
      'leverage',
      'utilize',
    ]);
    expect(
      v.dna.voice.tone
        .map((x: { tone: string }) => x.tone)
        .slice(0, 2)
        .sort(),
    ).toEqual([...B.truth.tones].sort());
    expect(v.preview.sourceCounts).toMatchObject({ video: 1, font: 2, document: 1 });
  });
});
