import sharp from 'sharp';
import { ifSet, str } from '../../shared/env-settings.ts';
import {
  contentName,
  fitProviderImage,
  type ProviderDeps,
  type ProviderLimits,
  providerSceneEngine,
  providerSceneResult,
  providerSessions,
  withDefaultFetchers,
} from '../provider-http.ts';
import { toPngInput } from '../provider-inputs.ts';
import {
  type EngineWarning,
  GenerationError,
  type PlacedBox,
  type SceneEngine,
  type SceneRequest,
  type SceneResult,
} from '../scene-engine.ts';
import { imageApiEnv, type SceneProvider } from '../scene-provider.ts';
import {
  type ComfyConnection,
  type ComfyWorkflow,
  comfyRetry,
  createComfyClient,
  LABEL,
  loadWorkflow as loadAnyWorkflow,
  pickImage,
  placeholdersIn,
  requestVars,
  SCENE_TEMPLATE,
  substitute,
} from './comfy-client.ts';
import { generationSize, type ProductCanvas, productCanvas } from './product-canvas.ts';

export { type ComfyWorkflow, placeholdersIn, SCENE_TEMPLATE, substitute } from './comfy-client.ts';

/**
 * Scenes by a self-hosted ComfyUI server running a workflow: by default the shipped
 * config/comfyui/product-in-scene.json (the real product kept by its mask, the background
 * generated around it by SDXL inpainting 0.1, the product composited back pixel-exact), or any
 * workflow of the operator's.
 *
 * The workflow is ComfyUI's API format (in ComfyUI: "Export (API)"): an object of nodes
 * `{ "<id>": { "class_type": "...", "inputs": { ... } } }`. Placeholders in node input values are
 * replaced for each generation:
 *
 * | placeholder             | replaced by                                                          |
 * | ----------------------- | -------------------------------------------------------------------- |
 * | `{{prompt}}`            | the request's prompt                                                 |
 * | `{{negative_prompt}}`   | the `negativePrompt` setting                                         |
 * | `{{seed}}`              | the seed (a number)                                                  |
 * | `{{width}}`/`{{height}}`| the generation size in px (numbers): the request's aspect, multiples |
 * |                         | of 8, at most `maxPixels`; the result is resized to the request      |
 * | `{{aspect_ratio}}`      | e.g. `16:9`                                                          |
 * | `{{variation_index}}`   | 0..3 (a number)                                                      |
 * | `{{palette}}`           | the brand colours, `#rrggbb` comma-separated                         |
 * | `{{product_canvas}}`    | uploaded: the products cut out and placed for the variation on a     |
 * |                         | grey canvas of the generation size (see product-canvas.ts)           |
 * | `{{product_mask}}`      | uploaded: its mask, white = generate, black = keep (LoadImageMask,   |
 * |                         | channel `red`)                                                       |
 * | `{{product_image}}`     | the first product as supplied, uploaded                              |
 * | `{{product_image_N}}`   | the N-th product (1-based), uploaded                                 |
 * | `{{backdrop_image}}`    | the backdrop, uploaded                                               |
 *
 * A value that is exactly one numeric placeholder (`"{{seed}}"`) becomes a JSON number; any other
 * occurrence is replaced as text. Unknown placeholders refuse the workflow when the engine is
 * created; a request lacking an image the workflow uses is a GenerationError.
 *
 * With a product canvas the result reports where the products are (their boxes and mask, scaled
 * to the request); without one, as other providers, the whole frame. The protocol (uploads, our
 * own prompt id, history polls, lost jobs, cancel by queue delete then interrupt): comfy-client.ts.
 */
export interface ComfyUiSettings extends ProviderLimits, ComfyConnection {
  /** The API-format workflow, or the path of its JSON file. Default: the shipped product-in-scene template. */
  workflow?: ComfyWorkflow | string;
  /** The node whose images are the result. Default: the first node with a saved still image. */
  outputNode?: string;
  /** First wait between history polls. Default 1 s. */
  pollIntervalMs?: number;
  /** Longest wait between history polls. Default 3 s. */
  maxPollIntervalMs?: number;
  /** Longest side of uploaded product and backdrop images. Default 2048. */
  maxInputSide?: number;
  /** `{{negative_prompt}}`. Default: DEFAULT_NEGATIVE_PROMPT. */
  negativePrompt?: string;
  /** Largest generation size in pixels (`{{width}}` × `{{height}}`, the canvas). Default 1.5 MP (SDXL). */
  maxPixels?: number;
  /** The generation size's sides are multiples of this. Default 8 (the VAE's factor). */
  sizeMultiple?: number;
}

export const DEFAULT_NEGATIVE_PROMPT =
  'blurry, low quality, jpeg artifacts, watermark, text, logo, extra products, duplicate object, floating object, deformed, distorted';

const NUMERIC = new Set(['seed', 'width', 'height', 'variation_index']);
const TEXT = new Set([
  'prompt',
  'negative_prompt',
  'aspect_ratio',
  'palette',
  'product_image',
  'backdrop_image',
  'product_canvas',
  'product_mask',
]);

const known = (name: string) => NUMERIC.has(name) || TEXT.has(name) || /^product_image_[1-9]\d*$/.test(name);

/** Reads and checks a scene workflow (object or file path); throws a plain Error for a bad configuration. */
export function loadWorkflow(workflow: ComfyWorkflow | string): { workflow: ComfyWorkflow; name: string } {
  return loadAnyWorkflow(workflow, known);
}

export function createComfyUiSceneEngine(settings: ComfyUiSettings, deps: ProviderDeps): SceneEngine {
  const { workflow, name: workflowName } = loadWorkflow(settings.workflow ?? SCENE_TEMPLATE);
  const used = placeholdersIn(workflow);
  const usesCanvas = used.has('product_canvas') || used.has('product_mask');
  const client = createComfyClient(settings, deps);
  const name = `comfyui:${workflowName}`;
  const session = providerSessions(settings, deps, {
    label: LABEL,
    apiOrigin: client.baseUrl,
    headers: client.headers,
    defaultTimeoutMs: 300_000,
    retry: comfyRetry,
  });

  return providerSceneEngine(name, session, async (req, s) => {
    const warnings: EngineWarning[] = [];
    const size = generationSize(req.width, req.height, {
      maxPixels: settings.maxPixels ?? 1_572_864,
      multiple: settings.sizeMultiple ?? 8,
    });
    const vars: Record<string, string | number> = {
      ...requestVars(req, settings.negativePrompt ?? DEFAULT_NEGATIVE_PROMPT, size),
      aspect_ratio: req.aspectRatio,
      variation_index: req.variationIndex,
      palette: req.palette.join(', '),
    };
    const upload = async (png: Buffer, prefix: string, what: string) =>
      client.upload(s, png, contentName(png, prefix), what);

    let canvas: ProductCanvas | undefined;
    if (usesCanvas) {
      canvas = await productCanvas(req, size.width, size.height);
      warnings.push(...canvas.warnings);
      vars.product_canvas = await upload(canvas.canvas, 'atelier-canvas', 'product canvas');
      vars.product_mask = await upload(canvas.mask, 'atelier-mask', 'product mask');
    }
    for (const p of used) {
      const product = p === 'product_image' ? 1 : /^product_image_(\d+)$/.exec(p)?.[1];
      if (product !== undefined) {
        const n = Number(product);
        const bytes = req.products[n - 1]?.bytes;
        if (!bytes) {
          throw new GenerationError(
            `The ComfyUI workflow needs product image ${n} ({{${p}}}) but the request has ${req.products.length} product(s)`,
          );
        }
        const png = await toPngInput(bytes, `product image ${n}`, settings.maxInputSide ?? 2048);
        vars[p] = await upload(png, `atelier-product-${n}`, `product image ${n}`);
      } else if (p === 'backdrop_image') {
        if (!req.backdrop)
          throw new GenerationError(
            'The ComfyUI workflow needs a backdrop ({{backdrop_image}}) but the request has none',
          );
        const png = await toPngInput(req.backdrop, 'backdrop image', settings.maxInputSide ?? 2048);
        vars[p] = await upload(png, 'atelier-backdrop', 'backdrop image');
      }
    }

    notSent(req, used, usesCanvas, workflowName, warnings);

    const { entry } = await client.run(s, substitute(workflow, vars), {
      ...(settings.outputNode !== undefined ? { outputNode: settings.outputNode } : {}),
      intervals: { intervalMs: settings.pollIntervalMs ?? 1000, maxIntervalMs: settings.maxPollIntervalMs ?? 3000 },
      warnings,
    });

    const image = pickImage(entry, settings.outputNode);
    if (!image) {
      throw s.fail(
        `${LABEL} finished the workflow without an image${settings.outputNode ? ` from node ${settings.outputNode}` : ''} (is there a SaveImage node?)`,
      );
    }
    const bytes = await s.downloadImage(client.viewUrl(image));
    if (!canvas) return providerSceneResult(req, bytes, name, warnings);
    return placedResult(req, bytes, canvas, name, warnings);
  });
}

/**
 * The request's images the workflow has no placeholder for, named in an INPUT_NOT_SENT warning
 * (`info` for a backdrop the environment engine made from the prompt, which it carries anyway).
 */
function notSent(
  req: SceneRequest,
  used: Set<string>,
  usesCanvas: boolean,
  workflowName: string,
  warnings: EngineWarning[],
): void {
  if (!usesCanvas) {
    const slots = [...used].map((p) => (p === 'product_image' ? 1 : Number(/^product_image_(\d+)$/.exec(p)?.[1] ?? 0)));
    const taken = Math.max(0, ...slots);
    if (req.products.length > taken) {
      warnings.push({
        code: 'INPUT_NOT_SENT',
        severity: 'warning',
        message: `The ComfyUI workflow ${workflowName} takes ${taken} product image(s): ${req.products.length - taken} not sent`,
      });
    }
  }
  if (req.backdrop && !used.has('backdrop_image')) {
    warnings.push({
      code: 'INPUT_NOT_SENT',
      severity: req.backdropHints ? 'info' : 'warning',
      message: `The ComfyUI workflow ${workflowName} takes no backdrop ({{backdrop_image}}): the backdrop was not sent; the model draws the background from the prompt`,
    });
  }
}

/**
 * The result of a product-canvas workflow: the image fitted to the request, the products' boxes
 * and mask (where the canvas put them) scaled with it.
 */
async function placedResult(
  req: SceneRequest,
  image: Buffer,
  canvas: ProductCanvas,
  engine: string,
  warnings: EngineWarning[],
): Promise<SceneResult> {
  const fitted = await fitProviderImage(image, req);
  const kx = req.width / canvas.width;
  const ky = req.height / canvas.height;
  const productBoxes: PlacedBox[] = canvas.boxes.map((b) => {
    const left = Math.max(0, Math.round(b.left * kx));
    const top = Math.max(0, Math.round(b.top * ky));
    return {
      left,
      top,
      width: Math.max(1, Math.min(req.width - left, Math.round(b.width * kx))),
      height: Math.max(1, Math.min(req.height - top, Math.round(b.height * ky))),
    };
  });
  const productMask =
    canvas.boxes.length > 0
      ? await sharp(canvas.alpha, { raw: { width: canvas.width, height: canvas.height, channels: 1 } })
          .resize(req.width, req.height, { fit: 'fill' })
          .extractChannel(0)
          .raw()
          .toBuffer()
      : undefined;
  return {
    png: fitted.png,
    width: req.width,
    height: req.height,
    productBoxes,
    ...(productMask ? { productMask } : {}),
    warnings: [...warnings, ...fitted.warnings],
    engine,
  };
}

/**
 * IMAGE_ENGINE=comfyui: COMFYUI_URL (default `http://127.0.0.1:8188`), COMFYUI_WORKFLOW_FILE
 * (the API-format workflow; default the shipped config/comfyui/product-in-scene.json),
 * COMFYUI_OUTPUT_NODE (default the first SaveImage output), IMAGE_API_KEY (optional Bearer, for
 * a proxy in front), IMAGE_TIMEOUT_SECONDS (default 300), IMAGE_MAX_RETRIES.
 */
export const comfyUiSceneProvider: SceneProvider<'comfyui', ComfyUiSettings> = {
  kind: 'comfyui',
  parseSettings(env) {
    const api = imageApiEnv(env);
    return {
      workflow: str(env, 'COMFYUI_WORKFLOW_FILE') || SCENE_TEMPLATE,
      ...ifSet('baseUrl', api.comfyUrl),
      ...ifSet('apiKey', api.apiKey),
      ...ifSet('outputNode', str(env, 'COMFYUI_OUTPUT_NODE')),
      ...api.limits,
    };
  },
  create: (settings, deps) => createComfyUiSceneEngine(settings, withDefaultFetchers(deps)),
};
