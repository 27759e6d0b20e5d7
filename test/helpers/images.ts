import sharp from 'sharp';

/**
 * A JPEG with real texture (smooth gradients, waves and grain), deterministic for a seed: a photo
 * stand-in that compresses and decodes like one (flat colour would flatter every measurement).
 * No test-runner imports, so benchmarks use it too.
 */
export async function texturedJpeg(width: number, height: number, seed = 1, quality = 90): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  let s = seed >>> 0 || 1;
  const rand = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
  const fx = 6 + seed * 0.7;
  for (let y = 0; y < height; y++) {
    const v = y / height;
    for (let x = 0; x < width; x++) {
      const u = x / width;
      const i = (y * width + x) * 3;
      const wave = Math.sin(u * fx * Math.PI + Math.cos(v * 9) * 2) * 0.5 + 0.5;
      const grain = rand() * 60 - 30;
      raw[i] = clamp(40 + 170 * u + 30 * wave + grain);
      raw[i + 1] = clamp(60 + 120 * v * wave + grain);
      raw[i + 2] = clamp(200 - 150 * u * v + 40 * wave + grain);
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .jpeg({ quality })
    .toBuffer();
}

const clamp = (n: number) => (n < 0 ? 0 : n > 255 ? 255 : Math.round(n));
