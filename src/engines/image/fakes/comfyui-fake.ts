import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import sharp from 'sharp';
import type { ComfyWorkflow } from '../comfyui/comfy-client.ts';
import { type FakeServer, later, NOT_AN_IMAGE, sendBytes, sendJson, startFakeServer } from './fake-http.ts';

/**
 * A fake ComfyUI server, rebuilt from Comfy-Org/ComfyUI @ a125cd84 (v0.3.64): `C server.py:NNN`,
 * `C execution.py:NNN`... cite that tree. It keeps ComfyUI's own model:
 *
 * - one worker: a queue of PENDING prompts (a heap by `number`) and at most one RUNNING prompt
 *   (C execution.py:1077-1105, main.py:188-202); the worker advances when the history of a prompt
 *   is polled (`tick`): a pending prompt starts, a running one finishes after `runPolls` polls;
 * - `POST /prompt` validates the graph against NODE_SIGNATURES (below; class names, required
 *   inputs, link types, INT/FLOAT bounds, combos, LoadImage files) the way C execution.py:725-1073
 *   does, answers 400 or 200 (with `node_errors` when some outputs were dropped) and queues the
 *   good outputs only;
 * - `GET /history/{id}` is `{}` until the prompt FINISHED (success, execution_error or
 *   execution_interrupted: C execution.py:1112-1134); the outputs are computed by a small
 *   evaluator of the image nodes (LoadImage, LoadImageMask, InvertMask, GrowMask, VAEDecode as a
 *   generated studio backdrop, ImageCompositeMasked), so a product-in-scene template really puts
 *   the uploaded product back where its mask says;
 * - `POST /queue {delete}` removes PENDING prompts only; `POST /interrupt {prompt_id}` interrupts
 *   only that prompt when it is the one running, no body interrupts whatever runs;
 * - `POST /upload/image`, `POST /upload/mask`, `GET /view` (PNG, MP4, WEBM, WEBP by name), `GET
 *   /queue`, `GET /system_stats`.
 *
 * With `apiKey`, a Bearer token is required (a reverse proxy in front of ComfyUI). `mode` picks a
 * failure.
 */
export type ComfyFakeMode =
  | 'ok'
  /** `/prompt` fails as aiohttp does on an exception in a handler: 500, a text body. */
  | 'server-error'
  | 'slow'
  /** The prompt runs and never finishes (until interrupted). */
  | 'stuck'
  | 'malformed-json'
  /** The prompt finishes with no outputs. */
  | 'no-image'
  /** `/view` serves bytes that are not an image. */
  | 'not-an-image'
  /** The KSampler fails with CUDA OOM (C execution.py:566-592, 620-646). */
  | 'execution-error'
  /** No checkpoint installed: CheckpointLoaderSimple's combo is empty. */
  | 'invalid-workflow'
  /** `/prompt` answers 200, then the server restarts: queue and history (in memory) are gone. */
  | 'lost'
  /** Someone else interrupts the running prompt (the server's Cancel button). */
  | 'interrupted';

export interface ComfyFake extends FakeServer {
  mode: ComfyFakeMode;
  /** Polls of its history a prompt stays running before it finishes. Default 2. */
  runPolls: number;
  uploads: Map<string, Buffer>;
  /** Ids named in `POST /queue {delete}`, and those that were removed (pending). */
  deleted: string[];
  removed: string[];
  /** Every `POST /interrupt`: the prompt id asked (undefined: global) and whether it interrupted anything. */
  interrupts: { promptId?: string; interrupted?: string }[];
  /** The workflows received by POST /prompt. */
  prompts: ComfyWorkflow[];
  /** Model files installed, by ComfyUI folder. */
  models: Record<ModelFolder, string[]>;
  /** Files the fake serves at /view, by `type/subfolder/filename`. */
  files: Map<string, Buffer>;
  /** Another client's prompt, running until interrupted: ours then waits in the queue. */
  occupy(): string;
  /** Ids of the pending and running prompts. */
  queue(): { running: string[]; pending: string[] };
  /** The history entry of a prompt, if finished. */
  history(id: string): HistoryEntry | undefined;
  reset(): void;
}

export type ModelFolder = 'checkpoints' | 'diffusion_models' | 'text_encoders' | 'vae' | 'clip_vision';

const DEFAULT_MODELS: Record<ModelFolder, string[]> = {
  checkpoints: ['sd_xl_base_1.0.safetensors'],
  diffusion_models: ['sdxl_inpainting_0.1.fp16.safetensors', 'wan2.2_ti2v_5B_fp16.safetensors'],
  text_encoders: ['umt5_xxl_fp8_e4m3fn_scaled.safetensors'],
  vae: ['wan2.2_vae.safetensors'],
  clip_vision: ['clip_vision_h.safetensors'],
};

// ---------------------------------------------------------------------------------------------
// Node signatures (INPUT_TYPES / RETURN_TYPES / OUTPUT_NODE), as read from the ComfyUI tree
// ---------------------------------------------------------------------------------------------

type InputSpec =
  | { link: string }
  | { int: [number, number] }
  | { float: [number, number] }
  | { string: true }
  | { boolean: true }
  | { combo: readonly string[] }
  | { models: ModelFolder }
  /** A file under input/ (LoadImage's VALIDATE_INPUTS, C nodes.py:1699-1704, 1748-1753). */
  | { inputFile: true };

export interface NodeSignature {
  required: Record<string, InputSpec>;
  optional?: Record<string, InputSpec>;
  returns: string[];
  output?: boolean;
  /** Where it was read. */
  source: string;
}

const MAX_RES = 16384; // C nodes.py:52
const L = (t: string): InputSpec => ({ link: t });
const INT = (min: number, max: number): InputSpec => ({ int: [min, max] });
const FLOAT = (min: number, max: number): InputSpec => ({ float: [min, max] });
const STR: InputSpec = { string: true };
const BOOL: InputSpec = { boolean: true };
// C comfy/samplers.py:730-734, 1054, 1063-1074
const SAMPLERS = [
  ...['euler', 'euler_cfg_pp', 'euler_ancestral', 'euler_ancestral_cfg_pp', 'heun', 'heunpp2', 'dpm_2'],
  ...['dpm_2_ancestral', 'lms', 'dpm_fast', 'dpm_adaptive', 'dpmpp_2s_ancestral', 'dpmpp_2s_ancestral_cfg_pp'],
  ...['dpmpp_sde', 'dpmpp_sde_gpu', 'dpmpp_2m', 'dpmpp_2m_cfg_pp', 'dpmpp_2m_sde', 'dpmpp_2m_sde_gpu'],
  ...['dpmpp_2m_sde_heun', 'dpmpp_2m_sde_heun_gpu', 'dpmpp_3m_sde', 'dpmpp_3m_sde_gpu', 'ddpm', 'lcm', 'ipndm'],
  ...['ipndm_v', 'deis', 'res_multistep', 'res_multistep_cfg_pp', 'res_multistep_ancestral'],
  ...['res_multistep_ancestral_cfg_pp', 'gradient_estimation', 'gradient_estimation_cfg_pp', 'er_sde', 'seeds_2'],
  ...['seeds_3', 'sa_solver', 'sa_solver_pece', 'ddim', 'uni_pc', 'uni_pc_bh2'],
];
const SCHEDULERS = [
  ...['simple', 'sgm_uniform', 'karras', 'exponential', 'ddim_uniform', 'beta', 'normal', 'linear_quadratic'],
  'kl_optimal',
];
const SEED = INT(0, 2 ** 64 - 1);

export const NODE_SIGNATURES: Record<string, NodeSignature> = {
  CheckpointLoaderSimple: {
    required: { ckpt_name: { models: 'checkpoints' } },
    returns: ['MODEL', 'CLIP', 'VAE'],
    source: 'nodes.py:559-571',
  },
  UNETLoader: {
    required: {
      unet_name: { models: 'diffusion_models' },
      weight_dtype: { combo: ['default', 'fp8_e4m3fn', 'fp8_e4m3fn_fast', 'fp8_e5m2'] },
    },
    returns: ['MODEL'],
    source: 'nodes.py:903-909',
  },
  CLIPLoader: {
    required: {
      clip_name: { models: 'text_encoders' },
      type: {
        combo: [
          ...['stable_diffusion', 'stable_cascade', 'sd3', 'stable_audio', 'mochi', 'ltxv', 'pixart', 'cosmos'],
          ...['lumina2', 'wan', 'hidream', 'chroma', 'ace', 'omnigen2', 'qwen_image', 'hunyuan_image'],
        ],
      },
    },
    optional: { device: { combo: ['default', 'cpu'] } },
    returns: ['CLIP'],
    source: 'nodes.py:928-937',
  },
  VAELoader: { required: { vae_name: { models: 'vae' } }, returns: ['VAE'], source: 'nodes.py:694-769' },
  CLIPVisionLoader: {
    required: { clip_name: { models: 'clip_vision' } },
    returns: ['CLIP_VISION'],
    source: 'nodes.py:985-990',
  },
  CLIPVisionEncode: {
    required: { clip_vision: L('CLIP_VISION'), image: L('IMAGE'), crop: { combo: ['center', 'none'] } },
    returns: ['CLIP_VISION_OUTPUT'],
    source: 'nodes.py:1002-1009',
  },
  CLIPTextEncode: { required: { text: STR, clip: L('CLIP') }, returns: ['CONDITIONING'], source: 'nodes.py:54-63' },
  LoadImage: { required: { image: { inputFile: true } }, returns: ['IMAGE', 'MASK'], source: 'nodes.py:1630-1642' },
  LoadImageMask: {
    required: { image: { inputFile: true }, channel: { combo: ['alpha', 'red', 'green', 'blue'] } },
    returns: ['MASK'],
    source: 'nodes.py:1706-1719',
  },
  InvertMask: { required: { mask: L('MASK') }, returns: ['MASK'], source: 'comfy_extras/nodes_mask.py:182-193' },
  GrowMask: {
    required: { mask: L('MASK'), expand: INT(-MAX_RES, MAX_RES), tapered_corners: BOOL },
    returns: ['MASK'],
    source: 'comfy_extras/nodes_mask.py:317-330',
  },
  ImageCompositeMasked: {
    required: {
      destination: L('IMAGE'),
      source: L('IMAGE'),
      x: INT(0, MAX_RES),
      y: INT(0, MAX_RES),
      resize_source: BOOL,
    },
    optional: { mask: L('MASK') },
    returns: ['IMAGE'],
    source: 'comfy_extras/nodes_mask.py:76-91',
  },
  InpaintModelConditioning: {
    required: {
      positive: L('CONDITIONING'),
      negative: L('CONDITIONING'),
      vae: L('VAE'),
      pixels: L('IMAGE'),
      mask: L('MASK'),
      noise_mask: BOOL,
    },
    returns: ['CONDITIONING', 'CONDITIONING', 'LATENT'],
    source: 'nodes.py:404-415',
  },
  VAEEncodeForInpaint: {
    required: { pixels: L('IMAGE'), vae: L('VAE'), mask: L('MASK'), grow_mask_by: INT(0, 64) },
    returns: ['LATENT'],
    source: 'nodes.py:364-368',
  },
  EmptyLatentImage: {
    required: { width: INT(16, MAX_RES), height: INT(16, MAX_RES), batch_size: INT(1, 4096) },
    returns: ['LATENT'],
    source: 'nodes.py:1164-1177',
  },
  KSampler: {
    required: {
      model: L('MODEL'),
      seed: SEED,
      steps: INT(1, 10000),
      cfg: FLOAT(0, 100),
      sampler_name: { combo: SAMPLERS },
      scheduler: { combo: SCHEDULERS },
      positive: L('CONDITIONING'),
      negative: L('CONDITIONING'),
      latent_image: L('LATENT'),
      denoise: FLOAT(0, 1),
    },
    returns: ['LATENT'],
    source: 'nodes.py:1499-1517',
  },
  KSamplerAdvanced: {
    required: {
      model: L('MODEL'),
      add_noise: { combo: ['enable', 'disable'] },
      noise_seed: SEED,
      steps: INT(1, 10000),
      cfg: FLOAT(0, 100),
      sampler_name: { combo: SAMPLERS },
      scheduler: { combo: SCHEDULERS },
      positive: L('CONDITIONING'),
      negative: L('CONDITIONING'),
      latent_image: L('LATENT'),
      start_at_step: INT(0, 10000),
      end_at_step: INT(0, 10000),
      return_with_leftover_noise: { combo: ['disable', 'enable'] },
    },
    returns: ['LATENT'],
    source: 'nodes.py:1527-1545',
  },
  VAEDecode: { required: { samples: L('LATENT'), vae: L('VAE') }, returns: ['IMAGE'], source: 'nodes.py:278-287' },
  SaveImage: {
    required: { images: L('IMAGE'), filename_prefix: STR },
    returns: [],
    output: true,
    source: 'nodes.py:1561-1614',
  },
  PreviewImage: { required: { images: L('IMAGE') }, returns: [], output: true, source: 'nodes.py:1616-1628' },
  SaveAnimatedWEBP: {
    required: {
      images: L('IMAGE'),
      filename_prefix: STR,
      fps: FLOAT(0.01, 1000),
      lossless: BOOL,
      quality: INT(0, 100),
      method: { combo: ['default', 'fastest', 'slowest'] },
    },
    returns: [],
    output: true,
    source: 'comfy_extras/nodes_images.py:98-122',
  },
  ModelSamplingSD3: {
    required: { model: L('MODEL'), shift: FLOAT(0, 100) },
    returns: ['MODEL'],
    source: 'comfy_extras/nodes_model_advanced.py:114-121',
  },
  WanImageToVideo: {
    required: {
      positive: L('CONDITIONING'),
      negative: L('CONDITIONING'),
      vae: L('VAE'),
      width: INT(16, MAX_RES),
      height: INT(16, MAX_RES),
      length: INT(1, MAX_RES),
      batch_size: INT(1, 4096),
    },
    optional: { clip_vision_output: L('CLIP_VISION_OUTPUT'), start_image: L('IMAGE') },
    returns: ['CONDITIONING', 'CONDITIONING', 'LATENT'],
    source: 'comfy_extras/nodes_wan.py:15-37',
  },
  Wan22ImageToVideoLatent: {
    required: {
      vae: L('VAE'),
      width: INT(32, MAX_RES),
      height: INT(32, MAX_RES),
      length: INT(1, MAX_RES),
      batch_size: INT(1, 4096),
    },
    optional: { start_image: L('IMAGE') },
    returns: ['LATENT'],
    source: 'comfy_extras/nodes_wan.py:1247-1264',
  },
  CreateVideo: {
    required: { images: L('IMAGE'), fps: FLOAT(1, 120) },
    optional: { audio: L('AUDIO') },
    returns: ['VIDEO'],
    source: 'comfy_extras/nodes_video.py:119-135',
  },
  SaveVideo: {
    required: {
      video: L('VIDEO'),
      filename_prefix: STR,
      // comfy_api/latest/_util/video_types.py:8-28
      format: { combo: ['auto', 'mp4'] },
      codec: { combo: ['auto', 'h264'] },
    },
    returns: [],
    output: true,
    source: 'comfy_extras/nodes_video.py:71-88',
  },
  SaveWEBM: {
    required: {
      images: L('IMAGE'),
      filename_prefix: STR,
      codec: { combo: ['vp9', 'av1'] },
      fps: FLOAT(0.01, 1000),
      crf: FLOAT(0, 63),
    },
    returns: [],
    output: true,
    source: 'comfy_extras/nodes_video.py:17-34',
  },
};

interface Reason {
  type: string;
  message: string;
  details: string;
  extra_info: Record<string, unknown>;
}

/** The outcome of validating one prompt, as C execution.py:966-1073 returns it. */
export interface Validation {
  ok: boolean;
  error?: Reason;
  goodOutputs: string[];
  nodeErrors: Record<string, { errors: Reason[]; dependent_outputs: string[]; class_type: string }>;
}

/**
 * Validates a prompt (API-format graph) as ComfyUI does: node classes, then each output node's
 * inputs recursively (C execution.py:725-958), collecting the dropped outputs' node errors.
 */
export function validatePrompt(
  prompt: Record<string, { class_type?: unknown; inputs?: Record<string, unknown> }>,
  env: { models: Record<ModelFolder, string[]>; inputFiles: (name: string) => boolean },
): Validation {
  const outputs: string[] = [];
  for (const [id, node] of Object.entries(prompt)) {
    // C execution.py:968-987
    if (!node || typeof node !== 'object' || !('class_type' in node)) {
      return fail({
        type: 'invalid_prompt',
        message: 'Cannot execute because a node is missing the class_type property.',
        details: `Node ID '#${id}'`,
        extra_info: {},
      });
    }
    const sig = NODE_SIGNATURES[String(node.class_type)];
    if (!sig) {
      return fail({
        type: 'invalid_prompt',
        message: `Cannot execute because node ${String(node.class_type)} does not exist.`,
        details: `Node ID '#${id}'`,
        extra_info: {},
      });
    }
    if (sig.output) outputs.push(id);
  }
  if (outputs.length === 0) {
    // C execution.py:993-1000
    return fail({ type: 'prompt_no_outputs', message: 'Prompt has no outputs', details: '', extra_info: {} });
  }

  const validated = new Map<string, { ok: boolean; reasons: Reason[] }>();
  const validateNode = (id: string): { ok: boolean; reasons: Reason[] } => {
    const done = validated.get(id);
    if (done) return done;
    const node = prompt[id] as { class_type: string; inputs?: Record<string, unknown> };
    const sig = NODE_SIGNATURES[node.class_type] as NodeSignature;
    const inputs = node.inputs ?? {};
    const errors: Reason[] = [];
    let ok = true;
    const all: [string, InputSpec, boolean][] = [
      ...Object.entries(sig.required).map(([k, v]) => [k, v, true] as [string, InputSpec, boolean]),
      ...Object.entries(sig.optional ?? {}).map(([k, v]) => [k, v, false] as [string, InputSpec, boolean]),
    ];
    for (const [name, spec, required] of all) {
      if (!(name in inputs)) {
        // C execution.py:757-768
        if (required) {
          errors.push({
            type: 'required_input_missing',
            message: 'Required input is missing',
            details: name,
            extra_info: { input_name: name },
          });
        }
        continue;
      }
      const val = inputs[name];
      if (Array.isArray(val)) {
        // A link [node_id, slot] (C execution.py:772-831)
        if (val.length !== 2) {
          errors.push({
            type: 'bad_linked_input',
            message: 'Bad linked input, must be a length-2 list of [node_id, slot_index]',
            details: name,
            extra_info: { input_name: name, received_value: val },
          });
          continue;
        }
        const from = prompt[String(val[0])] as { class_type: string } | undefined;
        const received = from ? NODE_SIGNATURES[from.class_type]?.returns[Number(val[1])] : undefined;
        const want = 'link' in spec ? spec.link : widgetType(spec);
        if (received === undefined) {
          // prompt[o_id] / RETURN_TYPES[i] raise: reported as an exception (C execution.py:1013-1026).
          errors.push({
            type: 'exception_during_inner_validation',
            message: 'Exception when validating inner node',
            details: `'${String(val[0])}'`,
            extra_info: { input_name: name, linked_node: val },
          });
          continue;
        }
        if (received !== want && received !== '*' && want !== '*') {
          errors.push({
            type: 'return_type_mismatch',
            message: 'Return type mismatch between linked nodes',
            details: `${name}, received_type(${received}) mismatch input_type(${want})`,
            extra_info: { input_name: name, received_type: received, linked_node: val },
          });
          continue;
        }
        if (!validateNode(String(val[0])).ok) ok = false;
        continue;
      }
      if ('link' in spec) {
        // A literal where a link is expected: C execution.py:841-852 converts nothing, and the
        // node receives a value of the wrong type; the closest validation answer is a mismatch.
        errors.push({
          type: 'return_type_mismatch',
          message: 'Return type mismatch between linked nodes',
          details: `${name}, received_type(${typeof val}) mismatch input_type(${spec.link})`,
          extra_info: { input_name: name },
        });
        continue;
      }
      const problem = checkWidget(name, spec, val, env);
      if (problem) errors.push(problem);
    }
    const result = { ok: ok && errors.length === 0, reasons: errors };
    validated.set(id, result);
    return result;
  };

  const good: string[] = [];
  const nodeErrors: Validation['nodeErrors'] = {};
  const failures: Reason[] = [];
  for (const o of outputs) {
    const r = validateNode(o);
    if (r.ok) {
      good.push(o);
      continue;
    }
    failures.push(...r.reasons);
    // C execution.py:1037-1054: every node with reasons, with the outputs depending on it.
    for (const [id, v] of validated) {
      if (v.ok || v.reasons.length === 0) continue;
      nodeErrors[id] ??= {
        errors: v.reasons,
        dependent_outputs: [],
        class_type: (prompt[id] as { class_type: string }).class_type,
      };
      nodeErrors[id].dependent_outputs.push(o);
    }
  }
  if (good.length === 0) {
    // C execution.py:1057-1071
    const details = Object.values(nodeErrors)
      .flatMap((n) => n.errors)
      .concat(failures)
      .map((e) => `${e.message}: ${e.details}`);
    return {
      ok: false,
      error: {
        type: 'prompt_outputs_failed_validation',
        message: 'Prompt outputs failed validation',
        details: [...new Set(details)].join('\n'),
        extra_info: {},
      },
      goodOutputs: [],
      nodeErrors,
    };
  }
  return { ok: true, goodOutputs: good, nodeErrors };

  function fail(error: Reason): Validation {
    return { ok: false, error, goodOutputs: [], nodeErrors: {} };
  }
}

function widgetType(spec: InputSpec): string {
  if ('int' in spec) return 'INT';
  if ('float' in spec) return 'FLOAT';
  if ('string' in spec) return 'STRING';
  if ('boolean' in spec) return 'BOOLEAN';
  return 'COMBO';
}

/** A widget value's problem (C execution.py:832-950), or undefined. */
function checkWidget(
  name: string,
  spec: InputSpec,
  val: unknown,
  env: { models: Record<ModelFolder, string[]>; inputFiles: (name: string) => boolean },
): Reason | undefined {
  if ('int' in spec || 'float' in spec) {
    // int(val) / float(val) (C execution.py:841-846): numbers, or strings Python converts.
    const isInt = 'int' in spec;
    const n =
      typeof val === 'number'
        ? isInt
          ? Math.trunc(val)
          : val
        : typeof val === 'string' &&
            (isInt ? /^\s*[-+]?\d+\s*$/ : /^\s*[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?\s*$/i).test(val)
          ? Number(val)
          : typeof val === 'boolean'
            ? Number(val)
            : Number.NaN;
    if (Number.isNaN(n)) {
      return {
        type: 'invalid_input_type',
        message: `Failed to convert an input value to a ${isInt ? 'INT' : 'FLOAT'} value`,
        details: `${name}, ${String(val)}, invalid literal`,
        extra_info: { input_name: name, received_value: val },
      };
    }
    const [min, max] = isInt ? (spec as { int: [number, number] }).int : (spec as { float: [number, number] }).float;
    // C execution.py:868-894 (the step is not checked)
    if (n < min) {
      return {
        type: 'value_smaller_than_min',
        message: `Value ${n} smaller than min of ${min}`,
        details: name,
        extra_info: { input_name: name, received_value: val },
      };
    }
    if (n > max) {
      return {
        type: 'value_bigger_than_max',
        message: `Value ${n} bigger than max of ${max}`,
        details: name,
        extra_info: { input_name: name, received_value: val },
      };
    }
    return undefined;
  }
  if ('string' in spec || 'boolean' in spec) return undefined; // str(val) / bool(val) never fail
  if ('inputFile' in spec) {
    // LoadImage.VALIDATE_INPUTS replaces the combo check (C execution.py:868, 923-950; nodes.py:1699-1704).
    if (typeof val === 'string' && env.inputFiles(val)) return undefined;
    return {
      type: 'custom_validation_failed',
      message: 'Custom validation failed for node',
      details: `${name} - Invalid image file: ${String(val)}`,
      extra_info: { input_name: name },
    };
  }
  if ('link' in spec) return undefined;
  const options = 'combo' in spec ? spec.combo : env.models[spec.models];
  if (typeof val === 'string' && options.includes(val)) return undefined;
  // C execution.py:896-921
  const list =
    options.length > 20 ? `(list of length ${options.length})` : `[${options.map((o) => `'${o}'`).join(', ')}]`;
  return {
    type: 'value_not_in_list',
    message: 'Value not in list',
    details: `${name}: '${String(val)}' not in ${list}`,
    extra_info: { input_name: name, received_value: val },
  };
}

// ---------------------------------------------------------------------------------------------
// A small evaluator of the image nodes (what the outputs look like)
// ---------------------------------------------------------------------------------------------

interface Img {
  w: number;
  h: number;
  rgb: Uint8Array;
}
interface Mask {
  w: number;
  h: number;
  m: Float32Array;
}

class Unmodelled extends Error {}

function generatedBackdrop(w: number, h: number, seed: number): Img {
  // A studio sweep: a wall gradient, a floor from 60 %, fine noise (what a model might draw).
  const rgb = new Uint8Array(w * h * 3);
  let s = (seed >>> 0) ^ 0x9e3779b9;
  const rnd = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 4294967296;
  };
  for (let y = 0; y < h; y++) {
    const t = y / h;
    const floor = t > 0.6;
    const base = floor ? [196 - t * 30, 188 - t * 30, 176 - t * 26] : [232 - t * 40, 226 - t * 38, 214 - t * 30];
    for (let x = 0; x < w; x++) {
      const n = (rnd() - 0.5) * 6;
      const o = (y * w + x) * 3;
      rgb[o] = (base[0] as number) + n;
      rgb[o + 1] = (base[1] as number) + n;
      rgb[o + 2] = (base[2] as number) + n;
    }
  }
  return { w, h, rgb };
}

async function decodeUpload(bytes: Buffer): Promise<{ w: number; h: number; rgba: Buffer; hasAlpha: boolean }> {
  const meta = await sharp(bytes).metadata();
  const { data, info } = await sharp(bytes).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { w: info.width, h: info.height, rgba: data, hasAlpha: meta.hasAlpha === true };
}

function grow(mask: Mask, expand: number, tapered: boolean): Mask {
  // scipy grey_dilation / grey_erosion with a 3×3 cross (tapered) or square (C nodes_mask.py:334-345)
  let m = mask.m;
  const { w, h } = mask;
  for (let k = 0; k < Math.abs(expand); k++) {
    const out = new Float32Array(w * h);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        let v = m[y * w + x] as number;
        for (let dy = -1; dy <= 1; dy++) {
          for (let dx = -1; dx <= 1; dx++) {
            if (tapered && dx !== 0 && dy !== 0) continue;
            const yy = y + dy;
            const xx = x + dx;
            if (yy < 0 || yy >= h || xx < 0 || xx >= w) continue;
            const u = m[yy * w + xx] as number;
            v = expand > 0 ? Math.max(v, u) : Math.min(v, u);
          }
        }
        out[y * w + x] = v;
      }
    }
    m = out;
  }
  return { w, h, m };
}

function resizeMask(mask: Mask, w: number, h: number): Mask {
  if (mask.w === w && mask.h === h) return mask;
  const m = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const sx = Math.min(mask.w - 1, Math.floor((x * mask.w) / w));
      const sy = Math.min(mask.h - 1, Math.floor((y * mask.h) / h));
      m[y * w + x] = mask.m[sy * mask.w + sx] as number;
    }
  }
  return { w, h, m };
}

/** Evaluates the IMAGE/MASK value at `[node, slot]` of a prompt. */
function evaluator(prompt: ComfyWorkflow, uploads: Map<string, Buffer>) {
  const cache = new Map<string, Promise<Img | Mask>>();
  const input = (id: string, name: string) => (prompt[id] as { inputs: Record<string, unknown> }).inputs[name];
  const link = (id: string, name: string) => input(id, name) as [string, number];

  async function value(id: string, slot: number): Promise<Img | Mask> {
    const key = `${id}:${slot}`;
    let p = cache.get(key);
    if (!p) {
      p = compute(id, slot);
      cache.set(key, p);
    }
    return p;
  }
  const image = async (l: [string, number]) => (await value(l[0], l[1])) as Img;
  const mask = async (l: [string, number]) => (await value(l[0], l[1])) as Mask;

  /** The pixel size a latent decodes to. */
  async function latentSize(l: [string, number]): Promise<{ w: number; h: number; seed: number }> {
    const [id] = l;
    const node = prompt[id] as { class_type: string };
    const floor8 = (v: number) => Math.floor(v / 8) * 8;
    switch (node.class_type) {
      case 'KSampler':
      case 'KSamplerAdvanced': {
        const inner = await latentSize(link(id, 'latent_image'));
        return { ...inner, seed: Number(input(id, 'seed') ?? input(id, 'noise_seed') ?? 0) };
      }
      case 'InpaintModelConditioning': // the VAE encode crops to multiples of 8 (nodes.py:422-432)
      case 'VAEEncodeForInpaint': {
        const px = await image(link(id, 'pixels'));
        return { w: floor8(px.w), h: floor8(px.h), seed: 0 };
      }
      case 'EmptyLatentImage': // width // 8 latent cells (nodes.py:1184-1186)
        return { w: floor8(Number(input(id, 'width'))), h: floor8(Number(input(id, 'height'))), seed: 0 };
      case 'Wan22ImageToVideoLatent':
      case 'WanImageToVideo':
        return { w: Number(input(id, 'width')), h: Number(input(id, 'height')), seed: 0 };
      default:
        throw new Unmodelled(`the fake cannot tell the size of a ${node.class_type} latent`);
    }
  }

  async function compute(id: string, slot: number): Promise<Img | Mask> {
    const node = prompt[id] as { class_type: string };
    switch (node.class_type) {
      case 'LoadImage': {
        const d = await decodeUpload(uploads.get(String(input(id, 'image'))) as Buffer);
        const n = d.w * d.h;
        if (slot === 0) {
          const rgb = new Uint8Array(n * 3);
          for (let i = 0; i < n; i++) {
            rgb[i * 3] = d.rgba[i * 4] as number;
            rgb[i * 3 + 1] = d.rgba[i * 4 + 1] as number;
            rgb[i * 3 + 2] = d.rgba[i * 4 + 2] as number;
          }
          return { w: d.w, h: d.h, rgb };
        }
        // MASK = 1 − alpha; no alpha: a 64×64 zero mask (nodes.py:1671-1678)
        if (!d.hasAlpha) return { w: 64, h: 64, m: new Float32Array(64 * 64) };
        const m = new Float32Array(n);
        for (let i = 0; i < n; i++) m[i] = 1 - (d.rgba[i * 4 + 3] as number) / 255;
        return { w: d.w, h: d.h, m };
      }
      case 'LoadImageMask': {
        // The channel as is; alpha inverted (nodes.py:1729-1738)
        const d = await decodeUpload(uploads.get(String(input(id, 'image'))) as Buffer);
        const c = ['red', 'green', 'blue', 'alpha'].indexOf(String(input(id, 'channel')));
        const m = new Float32Array(d.w * d.h);
        for (let i = 0; i < m.length; i++) {
          const v = (d.rgba[i * 4 + c] as number) / 255;
          m[i] = c === 3 ? 1 - v : v;
        }
        return { w: d.w, h: d.h, m };
      }
      case 'InvertMask': {
        const src = await mask(link(id, 'mask'));
        return { w: src.w, h: src.h, m: src.m.map((v) => 1 - v) };
      }
      case 'GrowMask':
        return grow(await mask(link(id, 'mask')), Number(input(id, 'expand')), input(id, 'tapered_corners') === true);
      case 'VAEDecode': {
        const size = await latentSize(link(id, 'samples'));
        return generatedBackdrop(size.w, size.h, size.seed);
      }
      case 'ImageCompositeMasked': {
        // composite() with multiplier 1 (nodes_mask.py:12-47, 96-100): mask 1 shows the source.
        const dest = await image(link(id, 'destination'));
        const src = await image(link(id, 'source'));
        const x = Number(input(id, 'x'));
        const y = Number(input(id, 'y'));
        const ml = input(id, 'mask') as [string, number] | undefined;
        const m = ml ? resizeMask(await mask(ml), src.w, src.h) : undefined;
        const out = Uint8Array.from(dest.rgb);
        for (let sy = 0; sy < src.h; sy++) {
          const dy = y + sy;
          if (dy < 0 || dy >= dest.h) continue;
          for (let sx = 0; sx < src.w; sx++) {
            const dx = x + sx;
            if (dx < 0 || dx >= dest.w) continue;
            const a = m ? (m.m[sy * src.w + sx] as number) : 1;
            const so = (sy * src.w + sx) * 3;
            const d = (dy * dest.w + dx) * 3;
            for (let c = 0; c < 3; c++) {
              out[d + c] = Math.round(a * (src.rgb[so + c] as number) + (1 - a) * (out[d + c] as number));
            }
          }
        }
        return { w: dest.w, h: dest.h, rgb: out };
      }
      default:
        throw new Unmodelled(`the fake does not evaluate ${node.class_type} images`);
    }
  }

  return { image, link };
}

// ---------------------------------------------------------------------------------------------
// The server
// ---------------------------------------------------------------------------------------------

interface Job {
  number: number;
  id: string;
  prompt: ComfyWorkflow;
  extra: Record<string, unknown>;
  outputs: string[];
  ticks: number;
  interrupt: boolean;
  /** Another client's: runs until interrupted. */
  foreign?: boolean;
}

export interface HistoryEntry {
  prompt: unknown[];
  outputs: Record<string, Record<string, unknown>>;
  status: { status_str: 'success' | 'error'; completed: boolean; messages: [string, Record<string, unknown>][] };
  meta: Record<string, unknown>;
}

/** A sample workflow in API format with a product LoadImage, using the older placeholders. */
export const SAMPLE_WORKFLOW: ComfyWorkflow = {
  '3': {
    class_type: 'KSampler',
    inputs: {
      seed: '{{seed}}',
      steps: 20,
      cfg: 7,
      sampler_name: 'euler',
      scheduler: 'normal',
      denoise: 1,
      model: ['4', 0],
      positive: ['6', 0],
      negative: ['7', 0],
      latent_image: ['5', 0],
    },
  },
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd_xl_base_1.0.safetensors' } },
  '5': { class_type: 'EmptyLatentImage', inputs: { width: '{{width}}', height: '{{height}}', batch_size: 1 } },
  '6': {
    class_type: 'CLIPTextEncode',
    inputs: { text: 'product photo, {{prompt}}, brand colours {{palette}}', clip: ['4', 1] },
  },
  '7': { class_type: 'CLIPTextEncode', inputs: { text: 'blurry, watermark', clip: ['4', 1] } },
  '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
  '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'atelier', images: ['8', 0] } },
  '10': { class_type: 'LoadImage', inputs: { image: '{{product_image}}' } },
};

const MIME: Record<string, string> = {
  png: 'image/png',
  webp: 'image/webp',
  mp4: 'video/mp4',
  webm: 'video/webm',
};

/** The first bytes of a WebM (EBML) file: what SaveWEBM writes, as far as a client can tell. */
const WEBM = Buffer.from([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x86, 0x81, 0x01, 0x42, 0xf7, 0x81, 0x01]);

export async function startComfyUiFake(o: { apiKey?: string; mp4?: Buffer } = {}): Promise<ComfyFake> {
  const state = { mode: 'ok' as ComfyFakeMode, number: 0, runPolls: 2 };
  const uploads = new Map<string, Buffer>(); // input/ files, by `subfolder/name`
  const files = new Map<string, Buffer>(); // by `type/subfolder/filename`
  const counters = new Map<string, number>();
  const deleted: string[] = [];
  const removed: string[] = [];
  const interrupts: ComfyFake['interrupts'] = [];
  const prompts: ComfyWorkflow[] = [];
  const models = structuredClone(DEFAULT_MODELS);
  let pending: Job[] = [];
  let running: Job | undefined;
  const history = new Map<string, HistoryEntry>();

  const tuple = (j: Job) => [j.number, j.id, j.prompt, j.extra, j.outputs];
  const fileKey = (type: string, subfolder: string, name: string) =>
    `${type}/${subfolder ? `${subfolder}/` : ''}${name}`;

  /** The worker: a running prompt finishes after `runPolls` ticks; then the next pending one starts. */
  async function tick() {
    if (running) {
      const j = running;
      if (j.interrupt) await finish(j, 'interrupted');
      else if (!j.foreign && state.mode === 'interrupted') await finish(j, 'interrupted');
      else if (!j.foreign && state.mode !== 'stuck' && ++j.ticks >= state.runPolls) await finish(j, 'done');
    }
    if (!running && pending.length > 0) {
      // heapq.heappop: the lowest number first (C execution.py:1094-1105)
      pending.sort((a, b) => a.number - b.number);
      running = pending.shift();
    }
  }

  function saveName(prefix: string, ext: string): { filename: string; subfolder: string } {
    // get_save_image_path: `sub/name` prefix → subfolder, next counter (C folder_paths.py:361-406)
    const parts = prefix.split('/');
    const base = parts.pop() || 'ComfyUI';
    const subfolder = parts.join('/');
    const key = `${subfolder}/${base}`;
    const n = (counters.get(key) ?? 0) + 1;
    counters.set(key, n);
    return { filename: `${base}_${String(n).padStart(5, '0')}_.${ext}`, subfolder };
  }

  async function finish(j: Job, how: 'done' | 'interrupted') {
    running = undefined;
    const ts = () => ({ timestamp: Date.now() });
    const messages: HistoryEntry['status']['messages'] = [
      ['execution_start', { prompt_id: j.id, ...ts() }],
      ['execution_cached', { nodes: [], prompt_id: j.id, ...ts() }],
    ];
    const outputs: HistoryEntry['outputs'] = {};
    const sampler = Object.keys(j.prompt).find((k) => /^KSampler/.test(j.prompt[k]?.class_type ?? '')) ?? '3';
    const fail = (node: string, message: string, type: string) => {
      messages.push([
        'execution_error',
        {
          prompt_id: j.id,
          node_id: node,
          node_type: j.prompt[node]?.class_type ?? 'KSampler',
          executed: [],
          exception_message: message,
          exception_type: type,
          traceback: ['  File "execution.py", line 496, in execute\n'],
          current_inputs: {},
          current_outputs: [],
          ...ts(),
        },
      ]);
    };
    if (how === 'interrupted') {
      // C execution.py:626-633
      messages.push([
        'execution_interrupted',
        { prompt_id: j.id, node_id: sampler, node_type: 'KSampler', executed: [], ...ts() },
      ]);
    } else if (state.mode === 'execution-error') {
      // "{ex}\n{tips}" with the OOM tips (C execution.py:577-586)
      fail(
        sampler,
        'Allocation on device \nThis error means you ran out of memory on your GPU.\n\nTIPS: If the workflow worked before you might have accidentally set the batch_size to a large number.',
        'torch.OutOfMemoryError',
      );
    } else if (state.mode !== 'no-image') {
      const ev = evaluator(j.prompt, uploads);
      try {
        for (const id of j.outputs) {
          const node = j.prompt[id] as { class_type: string; inputs: Record<string, unknown> };
          const prefix = String(node.inputs.filename_prefix ?? 'ComfyUI');
          switch (node.class_type) {
            case 'SaveImage':
            case 'PreviewImage': {
              const img = await ev.image(ev.link(id, 'images'));
              const preview = node.class_type === 'PreviewImage';
              // PreviewImage saves to temp/ with a random suffix (nodes.py:1616-1621)
              const n = saveName(preview ? `ComfyUI_temp_${id}` : prefix, 'png');
              const type = preview ? 'temp' : 'output';
              files.set(
                fileKey(type, n.subfolder, n.filename),
                await sharp(img.rgb, { raw: { width: img.w, height: img.h, channels: 3 } })
                  .png()
                  .toBuffer(),
              );
              outputs[id] = { images: [{ ...n, type }] };
              break;
            }
            case 'SaveAnimatedWEBP': {
              const img = await ev.image(ev.link(id, 'images'));
              const n = saveName(prefix, 'webp');
              files.set(
                fileKey('output', n.subfolder, n.filename),
                await sharp(img.rgb, { raw: { width: img.w, height: img.h, channels: 3 } })
                  .webp()
                  .toBuffer(),
              );
              // { images, animated: (True,) } (nodes_images.py:161-162)
              outputs[id] = { images: [{ ...n, type: 'output' }], animated: [true] };
              break;
            }
            case 'SaveVideo':
            case 'SaveWEBM': {
              const mp4 = node.class_type === 'SaveVideo';
              // SaveVideo's default prefix is video/ComfyUI (nodes_video.py:81); ui.PreviewVideo
              // answers { images, animated: (True,) } (comfy_api/latest/_ui.py:427-432)
              const n = saveName(prefix, mp4 ? 'mp4' : 'webm');
              files.set(fileKey('output', n.subfolder, n.filename), mp4 ? (o.mp4 ?? Buffer.alloc(0)) : WEBM);
              outputs[id] = { images: [{ ...n, type: 'output' }], animated: [true] };
              break;
            }
            default:
              throw new Unmodelled(`the fake does not run ${node.class_type}`);
          }
        }
      } catch (err) {
        fail(sampler, `${err instanceof Error ? err.message : String(err)}\n`, 'Exception');
      }
    }
    const failed = messages.some(([k]) => k === 'execution_error' || k === 'execution_interrupted');
    if (!failed) messages.push(['execution_success', { prompt_id: j.id, ...ts() }]);
    history.set(j.id, {
      prompt: tuple(j),
      outputs: failed ? {} : outputs,
      // ExecutionStatus(status_str, completed = e.success, messages) (C main.py:197-202)
      status: { status_str: failed ? 'error' : 'success', completed: !failed, messages },
      meta: Object.fromEntries(
        Object.keys(failed ? {} : outputs).map((k) => [
          k,
          { node_id: k, display_node: k, parent_node: null, real_node_id: k },
        ]),
      ),
    });
  }

  function storeUpload(form: FormData | undefined, save?: (bytes: Buffer, name: string) => Promise<Buffer>) {
    return async (res: ServerResponse) => {
      // image_upload (C server.py:316-362)
      const file = form?.get('image');
      if (!file || typeof file === 'string' || !file.name) return res.writeHead(400).end();
      const type = String(form?.get('type') ?? 'input') || 'input';
      if (!['input', 'temp', 'output'].includes(type)) return res.writeHead(400).end();
      const subfolder = String(form?.get('subfolder') ?? '');
      if (subfolder.startsWith('/') || subfolder.split('/').includes('..')) return res.writeHead(400).end();
      let bytes: Buffer = Buffer.from(await file.arrayBuffer());
      let name = file.name;
      const overwrite = form?.get('overwrite');
      const where = (n: string) => fileKey(type, subfolder, n);
      if (overwrite !== 'true' && overwrite !== '1') {
        // " (i)" appended unless the same bytes are there already (C server.py:341-351)
        const dot = name.lastIndexOf('.');
        const [stem, ext] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
        for (let i = 1; files.has(where(name)); i++) {
          if ((files.get(where(name)) as Buffer).equals(bytes)) break;
          name = `${stem} (${i})${ext}`;
        }
      }
      if (save) bytes = await save(bytes, name);
      files.set(where(name), bytes);
      if (type === 'input') uploads.set(subfolder ? `${subfolder}/${name}` : name, bytes);
      return sendJson(res, 200, { name, subfolder, type });
    };
  }

  const server = await startFakeServer(async (req, res) => {
    if (o.apiKey && req.headers.authorization !== `Bearer ${o.apiKey}`)
      return sendJson(res, 401, { error: 'Unauthorized' });
    const path = req.url.pathname;

    if (req.method === 'POST' && path === '/upload/image') return storeUpload(req.form)(res);

    if (req.method === 'POST' && path === '/upload/mask') {
      // The MaskEditor route: the mask's alpha copied onto `original_ref` (C server.py:370-414).
      let ref: { filename?: string; subfolder?: string; type?: string };
      try {
        ref = JSON.parse(String(req.form?.get('original_ref') ?? ''));
      } catch {
        return res.writeHead(500, { 'content-type': 'text/plain' }).end('500: Internal Server Error');
      }
      const original = files.get(fileKey(ref.type ?? 'output', ref.subfolder ?? '', ref.filename ?? ''));
      return storeUpload(req.form, async (maskBytes) => {
        if (!original) return maskBytes; // nothing written by the real server; the answer is the same
        const alpha = await sharp(maskBytes).ensureAlpha().extractChannel(3).raw().toBuffer();
        const { width, height } = await sharp(original).metadata();
        return sharp(original)
          .removeAlpha()
          .joinChannel(alpha, { raw: { width: width as number, height: height as number, channels: 1 } })
          .png()
          .toBuffer();
      })(res);
    }

    if (req.method === 'POST' && path === '/prompt') {
      if (state.mode === 'server-error') {
        // aiohttp's answer to an exception in a handler
        return res
          .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
          .end('500 Internal Server Error\n\nServer got itself in trouble');
      }
      if (state.mode === 'slow') return later(res, 3000, () => sendJson(res, 500, {}));
      if (req.json === undefined) {
        // request.json() raises on a body that is not JSON: aiohttp answers 500
        return res.writeHead(500, { 'content-type': 'text/plain' }).end('500: Internal Server Error');
      }
      const body = req.json as { prompt?: unknown; prompt_id?: unknown; client_id?: unknown; number?: unknown };
      // number: given, or the next (C server.py:680-688)
      const number = typeof body.number === 'number' ? body.number : state.number++;
      if (!('prompt' in body)) {
        const error = {
          type: 'no_prompt',
          message: 'No prompt provided',
          details: 'No prompt provided',
          extra_info: {},
        };
        return sendJson(res, 400, { error, node_errors: {} }); // C server.py:713-720
      }
      const workflow = body.prompt as ComfyWorkflow;
      prompts.push(workflow);
      // prompt_id: the client's, or a new uuid (C server.py:692)
      const id = body.prompt_id !== undefined ? String(body.prompt_id) : randomUUID();
      const env = {
        models: state.mode === 'invalid-workflow' ? { ...models, checkpoints: [] } : models,
        inputFiles: (n: string) => uploads.has(n),
      };
      const v =
        workflow && typeof workflow === 'object' && !Array.isArray(workflow)
          ? validatePrompt(workflow, env)
          : validatePrompt({}, env);
      if (!v.ok) return sendJson(res, 400, { error: v.error, node_errors: v.nodeErrors }); // C server.py:710-712
      const extra: Record<string, unknown> = {};
      if (body.client_id !== undefined) extra.client_id = body.client_id; // C server.py:699-704
      if (state.mode !== 'lost') {
        pending.push({ number, id, prompt: workflow, extra, outputs: v.goodOutputs, ticks: 0, interrupt: false });
      }
      return sendJson(res, 200, { prompt_id: id, number, node_errors: v.nodeErrors }); // C server.py:705-709
    }

    const h = /^\/history\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && h) {
      const id = decodeURIComponent(h[1] as string);
      if (state.mode === 'malformed-json') return sendBytes(res, '{"x": {"outputs": ', 'application/json');
      await tick();
      const entry = history.get(id);
      return sendJson(res, 200, entry ? { [id]: entry } : {}); // C server.py:661-664
    }

    if (req.method === 'GET' && path === '/queue') {
      // C server.py:666-672
      return sendJson(res, 200, {
        queue_running: running ? [tuple(running)] : [],
        queue_pending: pending.map(tuple),
      });
    }

    if (req.method === 'POST' && path === '/queue') {
      if (req.json === undefined) return res.writeHead(500, { 'content-type': 'text/plain' }).end('500');
      const body = req.json as { clear?: unknown; delete?: unknown };
      if (body.clear) pending = []; // wipe_queue (C execution.py:1155-1158)
      for (const id of Array.isArray(body.delete) ? body.delete : []) {
        deleted.push(String(id));
        // delete_queue_item searches the pending queue only (C execution.py:1160-1171)
        const i = pending.findIndex((j) => j.id === id);
        if (i >= 0) {
          removed.push(String(id));
          pending.splice(i, 1);
        }
      }
      return res.writeHead(200).end(); // C server.py:734
    }

    if (req.method === 'POST' && path === '/interrupt') {
      // C server.py:736-766: {prompt_id} interrupts only that running prompt; no id: global.
      const promptId = (req.json as { prompt_id?: unknown } | undefined)?.prompt_id;
      if (promptId) {
        const hit = running?.id === promptId ? running : undefined;
        if (hit) hit.interrupt = true;
        interrupts.push({ promptId: String(promptId), ...(hit ? { interrupted: hit.id } : {}) });
      } else {
        if (running) running.interrupt = true;
        interrupts.push({ ...(running ? { interrupted: running.id } : {}) });
      }
      return res.writeHead(200).end();
    }

    if (req.method === 'GET' && path === '/system_stats') {
      return sendJson(res, 200, { system: { os: 'posix', comfyui_version: '0.3.64' }, devices: [] });
    }

    if (req.method === 'GET' && path === '/view') {
      // C server.py:416-518
      const q = req.url.searchParams;
      const filename = q.get('filename');
      if (!filename) return res.writeHead(404).end();
      if (filename.startsWith('/') || filename.includes('..')) return res.writeHead(400).end();
      const type = q.get('type') ?? 'output';
      if (!['input', 'output', 'temp'].includes(type)) return res.writeHead(400).end();
      const subfolder = q.get('subfolder') ?? '';
      if (subfolder.split('/').includes('..') || subfolder.startsWith('/')) return res.writeHead(403).end();
      const bytes = files.get(fileKey(type, subfolder, filename));
      if (!bytes || bytes.length === 0) return res.writeHead(404).end();
      const ext = filename.split('.').pop()?.toLowerCase() ?? '';
      if (state.mode === 'not-an-image' && ext === 'png') return sendBytes(res, NOT_AN_IMAGE, 'image/png');
      return sendBytes(res, bytes, MIME[ext] ?? 'application/octet-stream');
    }
    return res.writeHead(404).end();
  });

  const reset = () => {
    state.mode = 'ok';
    state.runPolls = 2;
    pending = [];
    running = undefined;
    history.clear();
    deleted.length = 0;
    removed.length = 0;
    interrupts.length = 0;
    prompts.length = 0;
    server.requests.length = 0;
    Object.assign(models, structuredClone(DEFAULT_MODELS));
  };

  return {
    ...server,
    uploads,
    deleted,
    removed,
    interrupts,
    prompts,
    models,
    files,
    reset,
    occupy() {
      const id = randomUUID();
      const job: Job = {
        number: state.number++,
        id,
        prompt: {},
        extra: { client_id: 'someone-else' },
        outputs: [],
        ticks: 0,
        interrupt: false,
        foreign: true,
      };
      if (running) pending.push(job);
      else running = job;
      return id;
    },
    queue: () => ({ running: running ? [running.id] : [], pending: pending.map((j) => j.id) }),
    history: (id) => history.get(id),
    get mode() {
      return state.mode;
    },
    set mode(m: ComfyFakeMode) {
      state.mode = m;
    },
    get runPolls() {
      return state.runPolls;
    },
    set runPolls(n: number) {
      state.runPolls = n;
    },
  };
}
