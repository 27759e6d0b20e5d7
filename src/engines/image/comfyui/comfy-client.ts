import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import {
  encodeMultipart,
  type ProviderDeps,
  type ProviderSession,
  providerError,
  type RetryPolicy,
  retryCreatesOnlyOn,
  trimBase,
} from '../provider-http.ts';
import { type EngineWarning, GenerationError } from '../scene-engine.ts';

/**
 * What the ComfyUI scene engine (./comfyui-engine.ts) and video engine
 * (src/engines/video/comfyui/comfyui.ts) share: API-format workflows with `{{placeholders}}`,
 * uploads, and one run of a workflow on the server, as ComfyUI's own server does it
 * (Comfy-Org/ComfyUI server.py, execution.py, main.py @ a125cd84, v0.3.64):
 *
 * - `POST /upload/image` (multipart `image`, `type=input`, `overwrite=true`; server.py:316-367) →
 *   `{ name, subfolder, type }`: the name a `LoadImage` node takes (`subfolder/name`).
 * - `POST /prompt` `{ prompt, client_id, prompt_id }` with OUR prompt id (server.py:692 takes a
 *   client-chosen one), so a cancel can name the job even when the answer is lost. A 400 carries
 *   `error` and `node_errors` (server.py:712); a 200 can carry `node_errors` too, when some output
 *   nodes failed validation and were dropped (execution.py:1028-1073, "Output will be ignored").
 * - `GET /history/{id}` is `{}` until the prompt has FINISHED, successfully or not (the entry is
 *   written in `task_done`, execution.py:1112-1134, main.py:195-202). Every few empty polls,
 *   `GET /queue` (server.py:666-672; items `[number, prompt_id, prompt, extra, outputs]`): a job in
 *   neither `queue_running` nor `queue_pending` nor the history was lost (server restarted, queue
 *   or history cleared) and fails at once (retryable) instead of polling to the deadline.
 * - Cancel (abort, timeout, any failure while the job may still be queued): `POST /queue
 *   {delete:[id]}` (removes a PENDING item only, execution.py:1160-1171), then `GET /queue` and,
 *   only when our id is in `queue_running`, `POST /interrupt {prompt_id}` (server.py:736-766; on
 *   servers before #9607 the interrupt is global, hence the check).
 * - Outputs: `outputs[node].images[]` `{filename, subfolder, type}` (SaveImage nodes.py:1607-1614);
 *   video nodes put their file under `images` too with `animated: [true]` (SaveVideo/SaveWEBM
 *   comfy_api/latest/_ui.py:427-432, SaveAnimatedWEBP nodes_images.py); the VideoHelperSuite
 *   custom node uses `gifs`. Files are read with `GET /view?filename=&subfolder=&type=`.
 */

export const LABEL = 'ComfyUI';
export const DEFAULT_COMFYUI_URL = 'http://127.0.0.1:8188';

/** The workflow templates shipped in the repository (config/comfyui). */
export const COMFYUI_TEMPLATES_DIR = path.resolve(import.meta.dirname, '..', '..', '..', '..', 'config', 'comfyui');
/** Product in scene: the real product kept by its mask, the background inpainted (SDXL inpainting 0.1). */
export const SCENE_TEMPLATE = path.join(COMFYUI_TEMPLATES_DIR, 'product-in-scene.json');
/** Image to video: Wan 2.2 TI2V 5B from the start frame, saved as MP4 (SaveVideo). */
export const VIDEO_TEMPLATE = path.join(COMFYUI_TEMPLATES_DIR, 'image-to-video.json');

export type ComfyWorkflow = Record<string, { class_type: string; inputs: Record<string, unknown>; _meta?: unknown }>;

const PLACEHOLDER = /\{\{\s*([a-z_0-9]+)\s*\}\}/g;

/**
 * Reads and checks a workflow (object or file path); throws a plain Error for a bad
 * configuration, naming unknown placeholders (`known` says which the engine fills).
 */
export function loadWorkflow(
  workflow: ComfyWorkflow | string,
  known: (name: string) => boolean,
): { workflow: ComfyWorkflow; name: string } {
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

/** The placeholders the scene and video workflows share: the prompt, the negative prompt, the seed and the size. */
export function requestVars(
  req: { prompt: string; seed: number },
  negativePrompt: string,
  size: { width: number; height: number },
): Record<string, string | number> {
  return {
    prompt: req.prompt,
    negative_prompt: negativePrompt,
    seed: req.seed,
    width: size.width,
    height: size.height,
  };
}

/**
 * ComfyUI's retries: a POST is sent again only after an HTTP 429/5xx answer (ComfyUI answers 5xx
 * before queueing anything: an exception in the handler), never after a lost connection, when the
 * prompt may already be queued; reads as usual.
 */
export const comfyRetry: RetryPolicy = retryCreatesOnlyOn([429, 500, 502, 503, 504]);

export interface ComfyConnection {
  /** Server root. Default `http://127.0.0.1:8188`. */
  baseUrl?: string;
  /** Sent as `Authorization: Bearer <apiKey>` (for a reverse proxy in front of ComfyUI). */
  apiKey?: string;
  /** `client_id` sent with each prompt. Default: a random id per engine. */
  clientId?: string;
  /** Check `GET /queue` after this many empty history polls (lost jobs). Default 3; 0: never. */
  queueCheckEvery?: number;
}

export interface HistoryFile {
  filename?: unknown;
  subfolder?: unknown;
  type?: unknown;
}
export interface HistoryEntry {
  outputs?: Record<string, { images?: HistoryFile[]; gifs?: HistoryFile[]; animated?: unknown }>;
  status?: { status_str?: unknown; completed?: unknown; messages?: unknown } | null;
}

/** One file a finished workflow saved. */
export interface ComfyOutput {
  node: string;
  filename: string;
  subfolder: string;
  type: string;
  /** Under `images` with `animated: [true]` (video / animated image nodes), or under `gifs`. */
  animated: boolean;
}

export interface RunOptions {
  /** The node whose files are the result; a 200 `/prompt` answer dropping it fails the run. */
  outputNode?: string;
  intervals: { intervalMs: number; maxIntervalMs: number };
  /** Warnings of the generation (an output node dropped that is not the result). */
  warnings: EngineWarning[];
}

export interface ComfyClient {
  readonly baseUrl: string;
  readonly headers: Record<string, string>;
  /** Uploads PNG bytes (`POST /upload/image`) and answers the name a LoadImage node takes. */
  upload(s: ProviderSession, png: Buffer, filename: string, what: string): Promise<string>;
  /** Queues `prompt` under a new id of ours, polls until it finished and answers its history entry. */
  run(s: ProviderSession, prompt: unknown, o: RunOptions): Promise<{ id: string; entry: HistoryEntry }>;
  /** Best effort: removes the job from the queue, interrupts it when it is the one running. */
  cancel(s: ProviderSession, id: string): Promise<void>;
  /** The `/view` URL of an output file. */
  viewUrl(file: ComfyOutput): string;
}

const ID = /^[\w-]{1,128}$/;

export function createComfyClient(conn: ComfyConnection, deps: ProviderDeps): ComfyClient {
  const baseUrl = trimBase(conn.baseUrl ?? DEFAULT_COMFYUI_URL);
  const headers: Record<string, string> = conn.apiKey ? { authorization: `Bearer ${conn.apiKey}` } : {};
  const clientId = conn.clientId ?? randomUUID();
  const every = Math.max(0, Math.floor(conn.queueCheckEvery ?? 3));

  async function upload(s: ProviderSession, png: Buffer, filename: string, what: string): Promise<string> {
    const body = await encodeMultipart([
      ['image', { bytes: png, filename, contentType: 'image/png' }],
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

  /** `GET /queue` read outside the session (it may be aborted or past its deadline). */
  async function queueIds(): Promise<{ running: Set<string>; pending: Set<string> } | undefined> {
    try {
      const res = await deps.fetcher.fetch(`${baseUrl}/queue`, {
        method: 'GET',
        headers,
        accept: 'application/json',
        timeoutMs: 2000,
        idleTimeoutMs: 2000,
        maxBytes: 32 * 1024 * 1024,
        throwOnHttpError: false,
      });
      if (res.status !== 200) return undefined;
      return parseQueue(JSON.parse(res.body.toString('utf8')));
    } catch {
      return undefined;
    }
  }

  async function cancel(s: ProviderSession, id: string): Promise<void> {
    // A pending prompt is removed; a running one is untouched by this (execution.py:1160-1171).
    await s.cancel(`${baseUrl}/queue`, 'POST', { delete: [id] });
    const q = await queueIds();
    // Only our own running prompt is interrupted (server.py:745-760; older servers interrupt
    // whatever runs, so never without seeing our id there).
    if (q?.running.has(id)) await s.cancel(`${baseUrl}/interrupt`, 'POST', { prompt_id: id });
  }

  async function history(s: ProviderSession, id: string): Promise<HistoryEntry | undefined> {
    const answer = (
      await s.json<Record<string, HistoryEntry>>(`${baseUrl}/history/${encodeURIComponent(id)}`, {
        what: 'checking the workflow',
      })
    ).json;
    const e = answer && typeof answer === 'object' ? answer[id] : undefined;
    return e && typeof e === 'object' ? e : undefined;
  }

  /** The queue as the session sees it (aborts and deadlines apply); undefined when unreadable. */
  async function sessionQueue(s: ProviderSession) {
    try {
      return parseQueue((await s.json<unknown>(`${baseUrl}/queue`, { what: 'checking the queue' })).json);
    } catch (err) {
      if (s.remainingMs() <= 0 || !(err instanceof GenerationError)) throw err;
      return undefined; // a proxy without /queue: no lost-job detection
    }
  }

  async function run(s: ProviderSession, prompt: unknown, o: RunOptions) {
    let id: string = randomUUID();
    // sending: the prompt may be queued; queued: it is; done: nothing to cancel.
    const st = { phase: 'sending' as 'sending' | 'queued' | 'done' };
    try {
      const submitted = (
        await s.json<{ prompt_id?: unknown; node_errors?: unknown }>(`${baseUrl}/prompt`, {
          json: { prompt, client_id: clientId, prompt_id: id },
          what: 'queueing the workflow',
          onHttpError: (status, body) => {
            if (status !== 400) return undefined;
            st.phase = 'done'; // a 400 queues nothing (server.py:710-712)
            return rejected(s, body);
          },
        })
      ).json;
      // Servers before #8189 (≈ v0.3.45) pick their own id.
      if (typeof submitted?.prompt_id === 'string' && ID.test(submitted.prompt_id)) id = submitted.prompt_id;
      else throw s.fail(`${LABEL} queued the workflow without a prompt_id`, true);
      st.phase = 'queued';
      droppedOutputs(s, submitted.node_errors, o);

      let empty = 0;
      const settle = (e: HistoryEntry) => {
        st.phase = 'done';
        const status = e.status;
        if (status && status.status_str === 'error') throw executionError(s, status.messages);
        return e;
      };
      const entry = await s.poll(async () => {
        const e = await history(s, id);
        if (e) return settle(e);
        empty++;
        if (every > 0 && empty % every === 0) {
          const q = await sessionQueue(s);
          if (q && !q.running.has(id) && !q.pending.has(id)) {
            // Finished between the two reads? (task_done moves it under one lock, execution.py:1114-1134.)
            const again = await history(s, id);
            if (again) return settle(again);
            st.phase = 'done';
            throw s.fail(
              `${LABEL} lost the workflow ${id}: it is neither queued, running nor in the history (was the server restarted, or its queue or history cleared?)`,
              true,
            );
          }
        }
        return undefined;
      }, o.intervals);
      return { id, entry };
    } catch (err) {
      if (st.phase !== 'done') await cancel(s, id);
      throw err;
    }
  }

  return {
    baseUrl,
    headers,
    upload,
    run,
    cancel,
    viewUrl: (f) =>
      `${baseUrl}/view?${new URLSearchParams({ filename: f.filename, subfolder: f.subfolder, type: f.type })}`,
  };
}

function parseQueue(j: unknown): { running: Set<string>; pending: Set<string> } | undefined {
  if (!j || typeof j !== 'object') return undefined;
  const o = j as { queue_running?: unknown; queue_pending?: unknown };
  if (!Array.isArray(o.queue_running) || !Array.isArray(o.queue_pending)) return undefined;
  // Each item is [number, prompt_id, prompt, extra_data, outputs_to_execute] (server.py:751).
  const ids = (items: unknown[]) =>
    new Set(items.map((i) => (Array.isArray(i) ? i[1] : undefined)).filter((x): x is string => typeof x === 'string'));
  return { running: ids(o.queue_running), pending: ids(o.queue_pending) };
}

interface NodeError {
  errors?: { type?: string; message?: string; details?: string }[];
  dependent_outputs?: unknown[];
  class_type?: string;
}

/** "node 4 (CheckpointLoaderSimple): Value not in list: ckpt_name: …" for the first few nodes. */
function describeNodeErrors(nodeErrors: Record<string, NodeError>): string[] {
  const out: string[] = [];
  for (const [id, ne] of Object.entries(nodeErrors).slice(0, 3)) {
    const e = ne?.errors?.[0];
    if (e) out.push(`node ${id} (${ne.class_type ?? '?'}): ${[e.message, e.details].filter(Boolean).join(': ')}`);
  }
  return out;
}

/** The GenerationError for a 400 from /prompt: the error and each node's first problem. */
function rejected(s: ProviderSession, body: Buffer): GenerationError {
  const top = providerError(body).message ?? 'the workflow does not validate';
  let nodes: string[] = [];
  try {
    const j = JSON.parse(body.toString('utf8')) as { node_errors?: Record<string, NodeError> };
    nodes = describeNodeErrors(j.node_errors ?? {});
  } catch {
    // not JSON: the top message is all there is
  }
  return s.fail(`${LABEL} rejected the workflow: ${[top, ...nodes].join('; ')}`);
}

/**
 * A 200 from /prompt whose `node_errors` is not empty: the outputs listed in `dependent_outputs`
 * were dropped and the rest queued (execution.py:1037-1055). Fails unless the result node is
 * set and was kept (then a warning).
 */
function droppedOutputs(s: ProviderSession, nodeErrors: unknown, o: RunOptions): void {
  if (!nodeErrors || typeof nodeErrors !== 'object' || Object.keys(nodeErrors).length === 0) return;
  const ne = nodeErrors as Record<string, NodeError>;
  const dropped = [
    ...new Set(Object.values(ne).flatMap((e) => (Array.isArray(e?.dependent_outputs) ? e.dependent_outputs : []))),
  ].map(String);
  const why = describeNodeErrors(ne).join('; ');
  if (o.outputNode !== undefined && !dropped.includes(o.outputNode)) {
    o.warnings.push({
      code: 'COMFYUI_OUTPUT_DROPPED',
      severity: 'warning',
      message: `${LABEL} ignored output node(s) ${dropped.join(', ') || '?'} of the workflow, which failed validation (${why})`,
    });
    return;
  }
  throw s.fail(
    `${LABEL} accepted the workflow but dropped output node(s) ${dropped.join(', ') || '?'} that failed validation: ${why}`,
  );
}

/** The GenerationError for a history entry whose status is `error`. */
function executionError(s: ProviderSession, messages: unknown): GenerationError {
  const list = Array.isArray(messages) ? messages : [];
  for (const m of list) {
    if (!Array.isArray(m)) continue;
    const [kind, data] = m as [unknown, Record<string, unknown> | undefined];
    const where =
      data?.node_id !== undefined
        ? ` in node ${String(data.node_id)}${data.node_type ? ` (${String(data.node_type)})` : ''}`
        : '';
    if (kind === 'execution_error' && data) {
      // "{exception}\n{tips}" (execution.py:586): the first line is the error, the rest ComfyUI's tips.
      const text = typeof data.exception_message === 'string' ? data.exception_message.trim() : '';
      const first = text.split('\n')[0]?.trim() ?? '';
      const type = typeof data.exception_type === 'string' ? data.exception_type : '';
      if (/OutOfMemory/i.test(type) || /out of memory/i.test(first)) {
        // ComfyUI unloads every model after an OOM (execution.py:579-582): a retry may pass.
        return s.fail(
          `${LABEL} ran out of GPU memory${where}${first ? `: ${first}` : ''} (a smaller size, fewer frames or a lighter model helps)`,
          true,
        );
      }
      return s.failed({ message: first || undefined, code: type || undefined }, `${LABEL} failed${where}`);
    }
    // Interrupted by someone (the server's Cancel button, another client): execution.py:626-633.
    if (kind === 'execution_interrupted') return s.fail(`${LABEL} interrupted the workflow${where}`, true);
  }
  return s.fail(`${LABEL} reported an error running the workflow`);
}

const VIDEO_EXT = /\.(mp4|m4v|mov|webm|mkv|avi|gif)$/i;
const MP4_EXT = /\.(mp4|m4v|mov)$/i;

/** Every file a finished workflow saved, by node id (numeric order). */
export function outputsOf(entry: HistoryEntry): ComfyOutput[] {
  const outputs = entry.outputs && typeof entry.outputs === 'object' ? entry.outputs : {};
  const ids = Object.keys(outputs).sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  const out: ComfyOutput[] = [];
  for (const node of ids) {
    const o = outputs[node];
    if (!o || typeof o !== 'object') continue;
    const animated = Array.isArray(o.animated) && o.animated[0] === true;
    const add = (list: unknown, isAnimated: boolean) => {
      for (const f of Array.isArray(list) ? (list as HistoryFile[]) : []) {
        if (!f || typeof f.filename !== 'string' || !f.filename) continue;
        out.push({
          node,
          filename: f.filename,
          subfolder: typeof f.subfolder === 'string' ? f.subfolder : '',
          type: typeof f.type === 'string' ? f.type : 'output',
          animated: isAnimated,
        });
      }
    };
    add(o.images, animated);
    add(o.gifs, true);
  }
  return out;
}

const byType = (files: ComfyOutput[]) => [
  ...files.filter((f) => f.type === 'output'),
  ...files.filter((f) => f.type !== 'output'),
];

/** The result image: a still one (not a video or animation), saved (`output`) before previews. */
export function pickImage(entry: HistoryEntry, outputNode?: string): ComfyOutput | undefined {
  const stills = outputsOf(entry).filter(
    (f) => !f.animated && !VIDEO_EXT.test(f.filename) && (outputNode === undefined || f.node === outputNode),
  );
  return byType(stills)[0];
}

/**
 * The result video: an MP4/QuickTime file (`images` with `animated`, or `gifs`); other videos
 * (WEBM, animated WEBP) are reported so the operator can switch the save node.
 */
export function pickVideo(entry: HistoryEntry, outputNode?: string): { file?: ComfyOutput; others: ComfyOutput[] } {
  const videos = outputsOf(entry).filter(
    (f) => (f.animated || VIDEO_EXT.test(f.filename)) && (outputNode === undefined || f.node === outputNode),
  );
  const mp4 = byType(videos.filter((f) => MP4_EXT.test(f.filename)));
  return { ...(mp4[0] ? { file: mp4[0] } : {}), others: videos.filter((f) => !MP4_EXT.test(f.filename)) };
}
