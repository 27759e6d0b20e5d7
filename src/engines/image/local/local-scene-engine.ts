/**
 * The `local` scene engine: the real product, cut out (cutout.ts), placed per one of four layouts
 * (layout.ts: the variation's shot) on the request's backdrop (cover-cropped to the exact output
 * size; a set photo that came without hints, cropped as the shot's) or on a studio sweep of its
 * own (backdrop.ts), with contact and cast shadows, an optional floor reflection, relit by the
 * set's key and with matching edges and grain (composite.ts). Offline, CPU only, no keys;
 * deterministic for the same request and seed.
 *
 * A refinement's `steering` (scene-engine.ts, planned by steering.ts) pulls levers on top: the
 * layout from the source's variation, forced or scaled (layout.ts); the set calmed, the products
 * separated from it, brand colours brought in (backdrop.ts), all before the products go in so they
 * take its light; a rim light on a dark product on a dark set and the brand logo (composite.ts).
 * Without steering the output is exactly what it was without the levers.
 *
 * Cut-outs are cached per engine (by the product bytes' hash), so a forge's four variations cut
 * each product once.
 */
import sharp from 'sharp';
import { shotFor } from '../../environment/shot.ts';
import {
  type EngineWarning,
  checkAbort,
  GenerationError,
  type PlacedBox,
  type SceneEngine,
  type SceneRequest,
  type SceneResult,
} from '../scene-engine.ts';
import {
  backdropStats,
  chroma,
  estimateHints,
  paintAccents,
  type SteerFocus,
  separateBackdrop,
  simplifyBackdrop,
  studioBackdrop,
  surroundLuma,
} from './backdrop.ts';
import { composite, drawLogo, type LogoImage, loadLogo, logoBox } from './composite.ts';
import { type Cutout, cutoutCache, DEFAULT_MAX_INPUT_PIXELS } from './cutout.ts';
import { sceneLayers } from './layers.ts';
import { computeLayout } from './layout.ts';
import { parseHex } from '../../../adapters/media/colors.ts';
import { luma } from './raster.ts';

export interface LocalSceneEngineOptions {
  /** The long side the engine is tuned for (px); cut-outs are worked at up to that size. Default 1024. */
  longSide?: number;
  /** Largest output accepted (pixels). Default 4096 × 4096. */
  maxOutputPixels?: number;
  /** Decoding bound for product and backdrop images (pixels). Default 64 MP. */
  maxInputPixels?: number;
  /** Cut-outs kept (by product bytes). Default 16. */
  cacheEntries?: number;
}

export const MAX_PRODUCTS = 5;
const MAX_SIDE = 8192;

/** How far out of focus a backdrop photo that came as it is goes (simplifyBackdrop's 0..1). */
const PHOTO_DEFOCUS = 0.5;
/** Where the hero stands on such a photo at the least (fraction of the height): its near foreground. */
const PHOTO_FOREGROUND = 0.9;

/** Prompt words that make the floor glossy or wet (a faint reflection under the products). */
const GLOSSY =
  /\b(gloss(y)?|reflect\w*|mirror\w*|wet|water|puddle\w*|rain\w*|polished|lacquer\w*|marble|glass|acrylic|chrome|ice|icy|lake|pool)\b/i;

export function createLocalSceneEngine(opts: LocalSceneEngineOptions = {}): SceneEngine {
  const longSide = opts.longSide ?? 1024;
  const maxOutputPixels = opts.maxOutputPixels ?? 4096 * 4096;
  const maxInputPixels = opts.maxInputPixels ?? DEFAULT_MAX_INPUT_PIXELS;
  const cutoutSide = Math.max(512, Math.min(2048, Math.round(longSide)));
  const cachedCutout = cutoutCache(opts.cacheEntries ?? 16);
  const cutout = (bytes: Buffer) => cachedCutout(bytes, { maxSide: cutoutSide, maxInputPixels });

  async function generate(req: SceneRequest): Promise<SceneResult> {
    const { width: W, height: H } = req;
    if (!Number.isInteger(W) || !Number.isInteger(H) || W < 16 || H < 16 || W > MAX_SIDE || H > MAX_SIDE) {
      throw new GenerationError(`The output size ${W}×${H} is not supported (16 to ${MAX_SIDE} px a side).`);
    }
    if (W * H > maxOutputPixels) {
      throw new GenerationError(`The output size ${W}×${H} is over the limit of ${maxOutputPixels} pixels.`);
    }
    if (!Array.isArray(req.products) || req.products.length > MAX_PRODUCTS) {
      throw new GenerationError(`A scene takes at most ${MAX_PRODUCTS} products.`);
    }
    checkAbort(req.signal);
    const warnings: EngineWarning[] = [];
    const steering = req.steering;
    // The layout: the variation's, or (a refinement) the source's, a forced one, and a size.
    const layoutOf = {
      variationIndex: steering?.baseLayout ?? req.variationIndex,
      preset: steering?.placement,
      scale: steering?.scale,
    };

    const cutouts = await Promise.all(req.products.map((p) => cutout(p.bytes)));
    checkAbort(req.signal);
    for (const [i, c] of cutouts.entries()) {
      for (const w of c.warnings) warnings.push({ ...w, message: `Product ${i + 1}: ${w.message}` });
      const cut = [c.touches.top && 'top', c.touches.left && 'left', c.touches.right && 'right'].filter(Boolean);
      if (cut.length > 0) {
        warnings.push({
          code: 'PRODUCT_CROPPED',
          message: `Product ${i + 1}: the image cuts the product at the ${cut.join(' and ')}; it is shown as cut.`,
          severity: 'info',
        });
      }
    }

    // The backdrop: the request's, cover-cropped to the exact size; else a studio sweep.
    let backdrop: Uint8Array | undefined;
    let backdropGiven = false;
    let hints = req.backdropHints;
    if (req.backdrop) {
      // A set photo that came as it is (no hints: not built for this shot) is cropped as the shot's.
      const crop = req.backdropHints ? undefined : shotFor(layoutOf.variationIndex).crop;
      const zoom = crop ? Math.max(1, crop.zoom) : 1;
      const Wz = Math.round(W * zoom);
      const Hz = Math.round(H * zoom);
      try {
        const { data } = await sharp(req.backdrop, { limitInputPixels: maxInputPixels, failOn: 'truncated' })
          .autoOrient()
          .resize(Wz, Hz, { fit: 'cover', position: 'centre' })
          .extract({
            left: Math.round((Wz - W) * (crop?.x ?? 0.5)),
            top: Math.round((Hz - H) * (crop?.y ?? 0.5)),
            width: W,
            height: H,
          })
          .toColourspace('srgb')
          .flatten({ background: '#808080' })
          .removeAlpha()
          .raw()
          .toBuffer({ resolveWithObject: true });
        backdrop = new Uint8Array(data.buffer, data.byteOffset, data.length);
        backdropGiven = true;
      } catch (err) {
        warnings.push({
          code: 'BACKDROP_UNREADABLE',
          message: `The backdrop image could not be read (${err instanceof Error ? err.message : String(err)}); a studio backdrop was used.`,
          severity: 'warning',
        });
      }
      if (backdrop && !hints) {
        const est = estimateHints(backdrop, W, H);
        if (est.horizon !== undefined || est.lightAngle !== undefined) {
          const preset = computeLayout({ width: W, height: H, ...layoutOf, items: [] });
          hints = { horizon: est.horizon ?? preset.horizon, lightAngle: est.lightAngle ?? preset.lightAngle };
        }
      }
    }
    checkAbort(req.signal);

    if (cutouts.length === 0) {
      // No product to place: the scene is the set itself, dressed for the prompt.
      const layout = computeLayout({ width: W, height: H, ...layoutOf, items: [], hints });
      const set =
        backdrop ??
        studioBackdrop({
          width: W,
          height: H,
          horizon: layout.horizon,
          lightAngle: layout.lightAngle,
          palette: req.palette ?? [],
          productLuma: 128,
          focus: { x: W / 2, y: layout.horizon * H },
          seed: req.seed,
          shot: layout.variation,
        });
      warnings.push({
        code: 'NO_PRODUCT',
        message: 'No product was given; the image shows the set alone.',
        severity: 'info',
      });
      const png = await sharp(set, { raw: { width: W, height: H, channels: 3 } })
        .png({ compressionLevel: 6 })
        .toBuffer();
      return { png, width: W, height: H, productBoxes: [], warnings, engine: 'local' };
    }

    // A photo that came as it is (no hints: not built for this shot) was not taken with the product
    // in it: the products stand in its near foreground, in front of the lens, and the photo behind
    // them is out of focus, as a lens focused on them would see it (sharp, it reads as a cut-out
    // pasted on a picture).
    const photoAsIs = backdropGiven && !req.backdropHints;
    const layout = computeLayout({
      width: W,
      height: H,
      ...layoutOf,
      items: cutouts.map((c) => ({ aspect: c.width / c.height, croppedBottom: c.touches.bottom })),
      hints,
      standAt: photoAsIs ? PHOTO_FOREGROUND : undefined,
    });

    for (const [i, p] of layout.placements.entries()) {
      const c = cutouts[i]!;
      const upscale = p.height / c.height;
      if (upscale > 2) {
        warnings.push({
          code: 'PRODUCT_LOW_RESOLUTION',
          message: `Product ${i + 1}: its image is ${c.width}×${c.height} px and is shown ${upscale.toFixed(1)}× larger; it may look soft.`,
          severity: 'info',
        });
      }
    }

    // Where the products stand and how bright they are: what the set's levers work around.
    const focus: SteerFocus = {
      box: unionBox(layout.placements),
      productLuma: meanProductLuma(cutouts),
      horizon: layout.horizon,
    };
    if (!backdrop) {
      const hero = layout.placements[0]!;
      backdrop = studioBackdrop({
        width: W,
        height: H,
        horizon: layout.horizon,
        lightAngle: layout.lightAngle,
        palette: req.palette ?? [],
        productLuma: focus.productLuma,
        focus: { x: hero.left + hero.width / 2, y: hero.base },
        seed: req.seed,
        shot: layout.variation,
      });
    }
    if (photoAsIs) simplifyBackdrop(backdrop, W, H, PHOTO_DEFOCUS, req.seed, focus);
    // A refinement's levers on the set, before the products go in (they take its light).
    let rim = 0;
    let logo: LogoImage | undefined;
    let printedLogo: PlacedBox | undefined;
    if (steering) {
      if (steering.logo && !steering.logo.bytes) {
        warnings.push({
          code: 'LOGO_MISSING',
          message: 'The steering asked for the logo but no logo image was given; the scene was made without it.',
          severity: 'warning',
        });
      } else if (steering.logo?.bytes) {
        logo = await loadLogo(steering.logo.bytes, maxInputPixels);
        if (!logo) {
          warnings.push({
            code: 'LOGO_UNREADABLE',
            message: 'The logo image could not be read; the scene was made without it.',
            severity: 'warning',
          });
        }
      }
      const simplify = clampLever(steering.simplifyBackdrop);
      if (simplify > 0) simplifyBackdrop(backdrop, W, H, simplify, req.seed, focus);
      const contrast = clampLever(steering.contrast);
      if (contrast > 0) {
        separateBackdrop(backdrop, W, H, contrast, focus);
        // A dark product that still sits on a dark surround gets a rim of light.
        const around = surroundLuma(backdrop, W, H, focus.box);
        if (focus.productLuma < 110 && around - focus.productLuma < 70) rim = contrast;
      }
      const accents = (steering.accentColors ?? [])
        .map((hex) => parseHex(hex))
        .filter((c): c is [number, number, number] => c !== undefined && chroma(c) >= 12);
      if (accents.length > 0) {
        paintAccents(backdrop, W, H, {
          colors: accents.slice(0, 2),
          // The engine's own studio sweep becomes painted paper with a prop; a photo's wall is painted.
          surface: backdropGiven ? 'wall' : 'sweep',
          horizon: layout.horizon,
          lightAngle: layout.lightAngle,
          focus,
          productColor: meanProductColor(cutouts),
          seed: req.seed,
        });
      }
      if (logo && steering.logo?.placement === 'backdrop') {
        printedLogo = logoBox(logo, {
          width: W,
          height: H,
          avoid: layout.placements,
          placement: 'backdrop',
          horizon: layout.horizon,
        });
        if (printedLogo) await drawLogo(backdrop, W, logo, printedLogo, true);
      }
    }
    const stats = backdropStats(backdrop, W, H);
    checkAbort(req.signal);

    // The clean plate, for the video engine's layers (layers.ts).
    const plate = Uint8Array.from(backdrop);
    const { rgb, mask } = await composite({
      width: W,
      height: H,
      backdrop,
      stats,
      layout,
      products: cutouts,
      seed: req.seed,
      glossy: GLOSSY.test(req.prompt ?? ''),
      ...(rim > 0 ? { rim } : {}),
    });
    checkAbort(req.signal);
    let logoBoxes: PlacedBox[] | undefined;
    if (logo) {
      const box =
        printedLogo ??
        (steering?.logo?.placement === 'backdrop'
          ? undefined
          : logoBox(logo, {
              width: W,
              height: H,
              avoid: layout.placements,
              placement: 'corner',
              horizon: layout.horizon,
            }));
      if (box && !printedLogo) {
        await drawLogo(rgb, W, logo, box, false);
        await drawLogo(plate, W, logo, box, false);
      }
      if (box) logoBoxes = [box];
      else {
        warnings.push({
          code: 'LOGO_NOT_PLACED',
          message:
            'There was no free place for the logo that would not cover a product; the scene was made without it.',
          severity: 'info',
        });
      }
    }
    const png = await sharp(rgb, { raw: { width: W, height: H, channels: 3 } })
      .png({ compressionLevel: 6, adaptiveFiltering: false })
      .toBuffer();
    return {
      png,
      width: W,
      height: H,
      productBoxes: layout.placements.map(({ left, top, width, height }) => ({ left, top, width, height })),
      productMask: Buffer.from(mask.buffer, mask.byteOffset, mask.length),
      ...(logoBoxes ? { logoBoxes } : {}),
      layers: await sceneLayers(rgb, plate, mask, W, H, layout.horizon),
      warnings,
      engine: 'local',
    };
  }

  return { name: 'local', generate };
}

const clampLever = (v: number | undefined) =>
  v === undefined || !Number.isFinite(v) ? 0 : Math.min(1, Math.max(0, v));

/** The products' union box (px). */
function unionBox(boxes: PlacedBox[]): PlacedBox {
  const left = Math.min(...boxes.map((b) => b.left));
  const top = Math.min(...boxes.map((b) => b.top));
  const right = Math.max(...boxes.map((b) => b.left + b.width));
  const bottom = Math.max(...boxes.map((b) => b.top + b.height));
  return { left, top, width: right - left, height: bottom - top };
}

/**
 * Calls `visit` for about 20,000 pixels of each cut-out (every step-th) that have some alpha, with
 * the index of their RGBA and their alpha (0..1]; answers the sum of those alphas.
 */
function sampleCutouts(cutouts: Cutout[], visit: (rgba: Cutout['rgba'], j: number, a: number) => void): number {
  let weight = 0;
  for (const c of cutouts) {
    const n = c.width * c.height;
    const step = Math.max(1, Math.floor(n / 20_000));
    for (let i = 0; i < n; i += step) {
      const a = c.rgba[i * 4 + 3]! / 255;
      if (a <= 0) continue;
      visit(c.rgba, i * 4, a);
      weight += a;
    }
  }
  return weight;
}

/** Alpha-weighted mean colour of the cut-outs (sampled). */
function meanProductColor(cutouts: Cutout[]): [number, number, number] {
  const sum = [0, 0, 0];
  const weight = sampleCutouts(cutouts, (rgba, j, a) => {
    for (let k = 0; k < 3; k++) sum[k] = sum[k]! + rgba[j + k]! * a;
  });
  return weight > 0 ? [sum[0]! / weight, sum[1]! / weight, sum[2]! / weight] : [128, 128, 128];
}

/** Alpha-weighted mean brightness of the cut-outs (sampled). */
function meanProductLuma(cutouts: Cutout[]): number {
  let sum = 0;
  const weight = sampleCutouts(cutouts, (rgba, j, a) => {
    sum += luma(rgba[j]!, rgba[j + 1]!, rgba[j + 2]!) * a;
  });
  return weight > 0 ? sum / weight : 128;
}
