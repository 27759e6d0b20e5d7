import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  contentName,
  createProviderHttp,
  encodeMultipart,
  type ProviderDeps,
  type ProviderLimits,
  type ProviderSession,
  providerError,
  providerSceneResult,
  toPngInput,
  trimBase,
} from '../provider-http.ts';
import { GenerationError, type SceneEngine, type SceneRequest, type SceneResult } from '../scene-engine.ts';

/**
 * Scenes by a self-hosted ComfyUI server running an operator-supplied workflow.
 *
 * The workflow is ComfyUI's API format (in ComfyUI: "Export (API)" / "Save (API Format)"): an
 * object of nodes `{ "<id>": { "class_type": "...", "inputs": { ... } } }`. Placeholders in node
 * input values are replaced for each generation:
 *
 * | placeholder             | replaced by                                                          |
 * | ----------------------- | -------------------------------------------------------------------- |
 * | `{{prompt}}`            | the request's prompt                                                 |
 * | `{{seed}}`              | the seed (a number)                                                  |
 * | `{{width}}`/`{{height}}`| the requested output size in px (numbers)                           |
 * | `{{aspect_ratio}}`      | e.g. `16:9`                                                          |
 * | `{{variation_index}}`   | 0..3 (a number)                                                      |
 * | `{{palette}}`           | the brand colours, `#rrggbb` comma-separated                         |
 * | `{{product_image}}`     | the first product, uploaded: the name a `LoadImage` node takes       |
 * | `{{product_image_N}}`   | the N-th product (1-based), uploaded                                 |
 * | `{{backdrop_image}}`    | the backdrop, uploaded                                               |
 *
 * A value that is exactly one numeric placeholder (`"{{seed}}"`) becomes a JSON number; any other
 * occurrence is replaced as text (`"studio photo, {{prompt}}"`). Unknown placeholders refuse the
 * workflow when the engine is created; a request lacking an image the workflow uses (no backdrop
 * for `{{backdrop_image}}`) is a GenerationError.
 *
 * Protocol: `POST /upload/image` (multipart `image`, `type=input`, `overwrite=true`, file named by
 * a hash of its bytes) for each image used; `POST /prompt` `{ prompt, client_id }` → `prompt_id`
 * (HTTP 400 with `error`/`node_errors` when the workflow does not validate); `GET
 * /history/{prompt_id}` polled until the entry appears with outputs (`status.status_str` `error`
 * → the node's `exception_message`); then `GET /view?filename=&subfolder=&type=` for the first
 * image of `outputNode` (default: the first node, by id, with `type: output` images). On timeout
 * the prompt is deleted from the queue (best effort).
 */
export interface ComfyUiSettings extends ProviderLimits {
  /** Server root. Default `http://127.0.0.1:8188`. */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer <apiKey>` (for a reverse proxy in front of ComfyUI). */
  apiKey?: string;
  /** The API-format workflow, or the path of its JSON file (read when the engine is created). */
  workflow: ComfyWorkflow | string;
  /** The node whose images are the result. Default: the first node with saved (`output`) images. */
  outputNode?: string;
  /** First wait between history polls. Default 1 s. */
  pollIntervalMs?: number;
  /** Longest wait between history polls. Default 3 s. */
  maxPollIntervalMs?: number;
  /** `client_id` sent with each prompt. Default: a random id per engine. */
  clientId?: string;
  /** Longest side of uploaded images. Default 2048. */
  maxInputSide?: number;
}

export type ComfyWorkflow = Record<string, { class_type: string; inputs: Record<string, unknown>; _meta?: unknown }>;

const LABEL = 'ComfyUI';
const NUMERIC = new Set(['seed', 'width', 'height', 'variation_index']);
const TEXT = new Set(['prompt', 'aspect_ratio', 'palette', 'product_image', 'backdrop_image']);
const PLACEHOLDER = /\{\{\s*([a-z_0-9]+)\s*\}\}/g;

const known = (name: string) => NUMERIC.has(name) || TEXT.has(name) || /^product_image_[1-9]\d*$/.test(name);

/** Reads and checks a workflow (object or file path); throws a plain Error for a bad configuration. */
export function loadWorkflow(workflow: ComfyWorkflow | string): { workflow: ComfyWorkflow; name: string } {
  let value: unknown = workflow;
  let name = 'workflow';
  if (typeof workflow === 'string') {
    name = path.basename(workflow).replace(/\.json$/i, '');
    let text: string;
    try {
      text = fs.readFileSync(workflow, 'utf8');
    } catch (err) {
      throw new Error(`comfyui: the workflow file ${workflow} cannot be read (${(err as Error).message})`);
    }
    try {
      value = JSON.parse(text);
    } catch {
      throw new Error(`comfyui: the workflow file ${workflow} is not JSON`);
    }
  }
  if (!value || typeof value !== 'object' || Array.isArray(value))
    throw new Error('comfyui: the workflow is not an object');
  const v = value as Record<string, unknown>;
  if (Array.isArray(v.nodes) && Array.isArray(v.links)) {
    throw new Error('comfyui: this is a UI workflow; export it in the API format (Export (API) / Save (API Format))');
  }
  const entries = Object.entries(v);
  if (entries.length === 0) throw new Error('comfyui: the workflow has no nodes');
  for (const [id, node] of entries) {
    const n = node as Record<string, unknown> | null;
    if (!n || typeof n !== 'object' || typeof n.class_type !== 'string' || !n.inputs || typeof n.inputs !== 'object') {
      throw new Error(`comfyui: workflow node "${id}" has no class_type and inputs (is it the API format?)`);
    }
  }
  const unknown = [...placeholdersIn(value)].filter((p) => !known(p));
  if (unknown.length > 0) {
    throw new Error(`comfyui: the workflow uses unknown placeholders: ${unknown.map((u) => `{{${u}}}`).join(', ')}`);
  }
  return { workflow: value as ComfyWorkflow, name };
}

/** Every placeholder name used anywhere in a value. */
export function placeholdersIn(value: unknown, out = new Set<string>()): Set<string> {
  if (typeof value === 'string') for (const m of value.matchAll(PLACEHOLDER)) out.add(m[1] as string);
  else if (Array.isArray(value)) for (const v of value) placeholdersIn(v, out);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) placeholdersIn(v, out);
  return out;
}

/** A copy of `value` with the placeholders replaced (numbers stay numbers when alone). */
export function substitute(value: unknown, vars: Record<string, string | number>): unknown {
  if (typeof value === 'string') {
    const alone = /^\{\{\s*([a-z_0-9]+)\s*\}\}$/.exec(value);
    if (alone && typeof vars[alone[1] as string] === 'number') return vars[alone[1] as string];
    return value.replace(PLACEHOLDER, (all, name: string) => (name in vars ? String(vars[name]) : all));
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, vars));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, vars)]));
  }
  return value;
}

interface HistoryImage {
  filename?: unknown;
  subfolder?: unknown;
  type?: unknown;
}
interface HistoryEntry {
  outputs?: Record<string, { images?: HistoryImage[] }>;
  status?: { status_str?: unknown; completed?: unknown; messages?: unknown };
}

export function createComfyUiSceneEngine(settings: ComfyUiSettings, deps: ProviderDeps): SceneEngine {
  const baseUrl = trimBase(settings.baseUrl ?? 'http://127.0.0.1:8188');
  const { workflow, name: workflowName } = loadWorkflow(settings.workflow);
  const used = placeholdersIn(workflow);
  const clientId = settings.clientId ?? randomUUID();
  const name = `comfyui:${workflowName}`;
  const http = createProviderHttp(
    {
      ...settings,
      label: LABEL,
      apiOrigin: baseUrl,
      headers: settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {},
      secrets: [settings.apiKey],
      defaultTimeoutMs: 300_000,
    },
    deps,
  );

  async function upload(s: ProviderSession, bytes: Buffer, what: string, prefix: string): Promise<string> {
    const png = await toPngInput(bytes, what, settings.maxInputSide ?? 2048);
    const body = await encodeMultipart([
      ['image', { bytes: png, filename: contentName(png, prefix), contentType: 'image/png' }],
      ['type', 'input'],
      ['overwrite', 'true'],
    ]);
    const res = (
      await s.json<{ name?: unknown; subfolder?: unknown }>(`${baseUrl}/upload/image`, {
        body,
        what: `uploading the ${what}`,
      })
    ).json;
    if (typeof res?.name !== 'string' || !res.name)
      throw s.fail(`${LABEL} answered the ${what} upload without a file name`, true);
    return typeof res.subfolder === 'string' && res.subfolder ? `${res.subfolder}/${res.name}` : res.name;
  }

  return {
    name,
    async generate(req: SceneRequest): Promise<SceneResult> {
      const s = http.session({ ...(req.signal ? { signal: req.signal } : {}) });
      const vars: Record<string, string | number> = {
        prompt: req.prompt,
        seed: req.seed,
        width: req.width,
        height: req.height,
        aspect_ratio: req.aspectRatio,
        variation_index: req.variationIndex,
        palette: req.palette.join(', '),
      };
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
          vars[p] = await upload(s, bytes, `product image ${n}`, `atelier-product-${n}`);
        } else if (p === 'backdrop_image') {
          if (!req.backdrop)
            throw new GenerationError(
              'The ComfyUI workflow needs a backdrop ({{backdrop_image}}) but the request has none',
            );
          vars[p] = await upload(s, req.backdrop, 'backdrop image', 'atelier-backdrop');
        }
      }
      const prompt = substitute(workflow, vars);

      const submitted = (
        await s.json<{ prompt_id?: unknown; node_errors?: unknown }>(`${baseUrl}/prompt`, {
          json: { prompt, client_id: clientId },
          what: 'queueing the workflow',
          onHttpError: (status, body) => (status === 400 ? rejected(s, body) : undefined),
        })
      ).json;
      const id = submitted?.prompt_id;
      if (typeof id !== 'string' || !/^[\w-]{1,128}$/.test(id))
        throw s.fail(`${LABEL} queued the workflow without a prompt_id`, true);

      let entry: HistoryEntry;
      try {
        entry = await s.poll(
          async () => {
            const history = (
              await s.json<Record<string, HistoryEntry>>(`${baseUrl}/history/${encodeURIComponent(id)}`, {
                what: 'checking the workflow',
              })
            ).json;
            const e = history?.[id];
            if (!e || typeof e !== 'object') return undefined;
            const st = e.status;
            if (st?.status_str === 'error') throw executionError(s, st.messages);
            if (st?.completed === true || st?.status_str === 'success') return e;
            return undefined;
          },
          { intervalMs: settings.pollIntervalMs ?? 1000, maxIntervalMs: settings.maxPollIntervalMs ?? 3000 },
        );
      } catch (err) {
        if (s.remainingMs() <= 0) await s.cancel(`${baseUrl}/queue`, 'POST', { delete: [id] });
        throw err;
      }

      const image = pickImage(entry, settings.outputNode);
      if (!image) {
        throw s.fail(
          `${LABEL} finished the workflow without an image${settings.outputNode ? ` from node ${settings.outputNode}` : ''} (is there a SaveImage node?)`,
        );
      }
      const q = new URLSearchParams({ filename: image.filename, subfolder: image.subfolder, type: image.type });
      const bytes = await s.downloadImage(`${baseUrl}/view?${q}`);
      return providerSceneResult(req, bytes, name, []);
    },
  };
}

/** The GenerationError for a 400 from /prompt: the error and each node's first problem. */
function rejected(s: ProviderSession, body: Buffer): GenerationError {
  const top = providerError(body).message ?? 'the workflow does not validate';
  const nodes: string[] = [];
  try {
    const j = JSON.parse(body.toString('utf8')) as {
      node_errors?: Record<string, { errors?: { message?: string; details?: string }[]; class_type?: string }>;
    };
    for (const [id, ne] of Object.entries(j.node_errors ?? {}).slice(0, 3)) {
      const e = ne.errors?.[0];
      if (e) nodes.push(`node ${id} (${ne.class_type ?? '?'}): ${[e.message, e.details].filter(Boolean).join(': ')}`);
    }
  } catch {
    // not JSON: the top message is all there is
  }
  return s.fail(`${LABEL} rejected the workflow: ${[top, ...nodes].join('; ')}`);
}

/** The GenerationError for a history entry whose status is `error`. */
function executionError(s: ProviderSession, messages: unknown): GenerationError {
  const list = Array.isArray(messages) ? messages : [];
  for (const m of list) {
    if (!Array.isArray(m)) continue;
    const [kind, data] = m as [unknown, Record<string, unknown> | undefined];
    if (kind === 'execution_error' && data) {
      const where =
        data.node_id !== undefined
          ? ` in node ${String(data.node_id)}${data.node_type ? ` (${String(data.node_type)})` : ''}`
          : '';
      return s.failed(
        {
          message: typeof data.exception_message === 'string' ? data.exception_message : undefined,
          code: typeof data.exception_type === 'string' ? data.exception_type : undefined,
        },
        `${LABEL} failed${where}`,
      );
    }
    if (kind === 'execution_interrupted') return s.fail(`${LABEL} interrupted the workflow`, true);
  }
  return s.fail(`${LABEL} reported an error running the workflow`);
}

function pickImage(
  entry: HistoryEntry,
  outputNode?: string,
): { filename: string; subfolder: string; type: string } | undefined {
  const outputs = entry.outputs && typeof entry.outputs === 'object' ? entry.outputs : {};
  const valid = (i: HistoryImage | undefined) =>
    i && typeof i.filename === 'string' && i.filename
      ? {
          filename: i.filename,
          subfolder: typeof i.subfolder === 'string' ? i.subfolder : '',
          type: typeof i.type === 'string' ? i.type : 'output',
        }
      : undefined;
  if (outputNode !== undefined) return valid(outputs[outputNode]?.images?.[0]);
  const ids = Object.keys(outputs).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  for (const type of ['output', undefined]) {
    for (const id of ids) {
      const img = (outputs[id]?.images ?? []).map(valid).find((i) => i && (type === undefined || i.type === type));
      if (img) return img;
    }
  }
  return undefined;
}
