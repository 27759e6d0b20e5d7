import type { ComfyWorkflow } from '../comfyui/comfyui-engine.ts';
import { type FakeServer, later, makePng, NOT_AN_IMAGE, sendBytes, sendJson, startFakeServer } from './fake-http.ts';

/**
 * A fake ComfyUI server: `POST /upload/image` (multipart `image`), `POST /prompt` (validates that
 * every LoadImage names an uploaded file; HTTP 400 with `error` and `node_errors` otherwise),
 * `GET /history/{id}` (empty for two polls, then the entry with SaveImage outputs), `GET /view`
 * (a PNG the size of the workflow's EmptyLatentImage), `POST /queue` (delete). With `apiKey`, a
 * Bearer token is required (a reverse proxy in front of ComfyUI). `mode` picks a failure.
 */
export type ComfyFakeMode =
  | 'ok'
  | 'server-error'
  | 'slow'
  | 'stuck'
  | 'malformed-json'
  | 'no-image'
  | 'not-an-image'
  | 'execution-error'
  | 'invalid-workflow';

export interface ComfyFake extends FakeServer {
  mode: ComfyFakeMode;
  uploads: Map<string, Buffer>;
  deleted: string[];
  /** The workflows received by POST /prompt. */
  prompts: ComfyWorkflow[];
}

/** A text-to-image workflow in API format with a product LoadImage, using every placeholder kind. */
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

export async function startComfyUiFake(apiKey?: string): Promise<ComfyFake> {
  const state = { mode: 'ok' as ComfyFakeMode, next: 0 };
  const uploads = new Map<string, Buffer>();
  const deleted: string[] = [];
  const prompts: ComfyWorkflow[] = [];
  const jobs = new Map<string, { polls: number; width: number; height: number }>();

  const server = await startFakeServer(async (req, res) => {
    if (apiKey && req.headers.authorization !== `Bearer ${apiKey}`)
      return sendJson(res, 401, { error: 'Unauthorized' });
    const path = req.url.pathname;

    if (req.method === 'POST' && path === '/upload/image') {
      const file = req.form?.get('image');
      if (!file || typeof file === 'string') return res.writeHead(400).end();
      uploads.set(file.name, Buffer.from(await file.arrayBuffer()));
      return sendJson(res, 200, {
        name: file.name,
        subfolder: String(req.form?.get('subfolder') ?? ''),
        type: 'input',
      });
    }

    if (req.method === 'POST' && path === '/prompt') {
      if (state.mode === 'server-error')
        return sendJson(res, 500, { error: { type: 'server_error', message: 'CUDA driver not found' } });
      if (state.mode === 'slow') return later(res, 3000, () => sendJson(res, 500, {}));
      const workflow = req.json?.prompt as ComfyWorkflow | undefined;
      if (!workflow || typeof workflow !== 'object') {
        return sendJson(res, 400, {
          error: { type: 'invalid_prompt', message: 'Invalid prompt', details: '' },
          node_errors: {},
        });
      }
      prompts.push(workflow);
      const nodeErrors: Record<string, unknown> = {};
      for (const [id, node] of Object.entries(workflow)) {
        if (node.class_type === 'LoadImage' && !uploads.has(String(node.inputs.image))) {
          nodeErrors[id] = {
            errors: [
              {
                type: 'custom_validation_failed',
                message: 'Custom validation failed for node',
                details: `image - Invalid image file: ${String(node.inputs.image)}`,
              },
            ],
            dependent_outputs: ['9'],
            class_type: 'LoadImage',
          };
        }
      }
      if (state.mode === 'invalid-workflow') {
        nodeErrors['4'] = {
          errors: [
            {
              type: 'value_not_in_list',
              message: 'Value not in list',
              details: "ckpt_name: 'sd_xl_base_1.0.safetensors' not in []",
            },
          ],
          dependent_outputs: ['9'],
          class_type: 'CheckpointLoaderSimple',
        };
      }
      if (Object.keys(nodeErrors).length > 0) {
        return sendJson(res, 400, {
          error: {
            type: 'prompt_outputs_failed_validation',
            message: 'Prompt outputs failed validation',
            details: '',
            extra_info: {},
          },
          node_errors: nodeErrors,
        });
      }
      const latent = Object.values(workflow).find((n) => n.class_type === 'EmptyLatentImage')?.inputs;
      const width = typeof latent?.width === 'number' ? latent.width : 512;
      const height = typeof latent?.height === 'number' ? latent.height : 512;
      const id = `00000000-0000-4000-8000-${String(++state.next).padStart(12, '0')}`;
      jobs.set(id, { polls: 0, width, height });
      return sendJson(res, 200, { prompt_id: id, number: state.next, node_errors: {} });
    }

    const history = /^\/history\/([\w-]+)$/.exec(path);
    if (req.method === 'GET' && history) {
      const id = history[1] as string;
      const job = jobs.get(id);
      if (state.mode === 'malformed-json') return sendBytes(res, '{"x": {"outputs": ', 'application/json');
      if (!job) return sendJson(res, 200, {});
      job.polls++;
      if (state.mode === 'stuck' || job.polls < 3) return sendJson(res, 200, {});
      if (state.mode === 'execution-error') {
        return sendJson(res, 200, {
          [id]: {
            prompt: [state.next, id, {}, {}, ['9']],
            outputs: {},
            status: {
              status_str: 'error',
              completed: false,
              messages: [
                ['execution_start', { prompt_id: id, timestamp: 1 }],
                [
                  'execution_error',
                  {
                    prompt_id: id,
                    node_id: '3',
                    node_type: 'KSampler',
                    executed: ['4', '5'],
                    exception_message: 'CUDA out of memory. Tried to allocate 1.50 GiB',
                    exception_type: 'torch.OutOfMemoryError',
                    traceback: ['...'],
                  },
                ],
              ],
            },
            meta: {},
          },
        });
      }
      const outputs =
        state.mode === 'no-image'
          ? {}
          : {
              '9': {
                images: [{ filename: `atelier_${job.width}x${job.height}_00001_.png`, subfolder: '', type: 'output' }],
              },
            };
      return sendJson(res, 200, {
        [id]: {
          prompt: [state.next, id, {}, {}, ['9']],
          outputs,
          status: { status_str: 'success', completed: true, messages: [['execution_success', { prompt_id: id }]] },
          meta: {},
        },
      });
    }

    if (req.method === 'GET' && path === '/view') {
      const m = /^atelier_(\d+)x(\d+)_\d+_\.png$/.exec(req.url.searchParams.get('filename') ?? '');
      if (!m || req.url.searchParams.get('type') !== 'output') return res.writeHead(404).end();
      if (state.mode === 'not-an-image') return sendBytes(res, NOT_AN_IMAGE, 'image/png');
      return sendBytes(res, await makePng(Number(m[1]), Number(m[2])));
    }

    if (req.method === 'POST' && path === '/queue') {
      for (const id of (req.json?.delete ?? []) as string[]) deleted.push(id);
      return res.writeHead(200).end();
    }
    return res.writeHead(404).end();
  });

  return {
    ...server,
    uploads,
    deleted,
    prompts,
    get mode() {
      return state.mode;
    },
    set mode(m: ComfyFakeMode) {
      state.mode = m;
    },
  };
}
