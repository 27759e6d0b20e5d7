import type http from 'node:http';
import sharp from 'sharp';
import {
  type FakeRequest,
  type FakeServer,
  later,
  makePng,
  NOT_AN_IMAGE,
  sendBytes,
  sendJson,
  startFakeServer,
} from './fake-http.ts';

/**
 * A fake OpenAI Images API (`/v1/images/generations` JSON, `/v1/images/edits` multipart), Bearer
 * auth, answering `data[0].b64_json` (or `data[0].url` on this server) with a real PNG of the
 * requested `size`. `mode` picks a failure.
 *
 * It checks requests as the official sources describe the API: sources cited per rule, as
 * `openai-node <path>:<line>` (openai/openai-node @ 7b7d6ca, package 7.5.0) and `spec:<line>`
 * (openai/openai-openapi openapi.yaml @ f85dbe2). The models openai-node names (ImageModel,
 * src/resources/images.ts:409-417) are checked per model; any other model is a compatible
 * server's, only the endpoint's own rules apply.
 */
export type OpenAiFakeMode =
  | 'ok'
  | 'url'
  | 'rate-limit-then-ok'
  | 'always-429'
  | 'quota'
  | 'server-error'
  | 'server-error-no-retry'
  | 'slow'
  | 'malformed-json'
  | 'missing-image'
  | 'not-an-image'
  | 'not-an-image-url'
  | 'content-policy'
  | 'bad-request';

export interface OpenAiFake extends FakeServer {
  baseUrl: string;
  mode: OpenAiFakeMode;
  /** Images API calls only (not the downloads). */
  calls(): FakeServer['requests'];
}

/** An error as the API sends it. */
interface ApiError {
  status: number;
  message: string;
  type?: string;
  param?: string | null;
  code?: string | null;
}

/**
 * `{ error: { message, type, param, code } }`, all four always present, `param`/`code` null when
 * empty: spec:38249-38268 (Error: all four required) and 38286-38292 (ErrorResponse); openai-node
 * src/core/error.ts:31-34 reads code, param and type from it.
 */
function sendError(res: http.ServerResponse, e: ApiError, headers: http.OutgoingHttpHeaders = {}) {
  sendJson(
    res,
    e.status,
    {
      error: {
        message: e.message,
        type: e.type ?? 'invalid_request_error',
        param: e.param ?? null,
        code: e.code ?? null,
      },
    },
    headers,
  );
}

/** The exact reply to a parameter the API does not know (vercel/ai#6102, for response_format on gpt-image-1). */
const unknownParameter = (param: string): ApiError => ({
  status: 400,
  message: `Unknown parameter: '${param}'.`,
  param,
  code: 'unknown_parameter',
});
const invalidValue = (param: string, value: unknown, allowed?: readonly string[]): ApiError => ({
  status: 400,
  message: `Invalid value: '${String(value)}'.${allowed ? ` Supported values are: ${allowed.map((a) => `'${a}'`).join(', ')}.` : ''}`,
  param,
  code: 'invalid_value',
});

const GPT_MODELS = [
  'gpt-image-1',
  'gpt-image-1-mini',
  'gpt-image-1.5',
  'gpt-image-2',
  'gpt-image-2-2026-04-21',
  'chatgpt-image-latest',
];
const isGpt = (m: string) => GPT_MODELS.includes(m);
const isOpenAiModel = (m: string) => isGpt(m) || m === 'dall-e-2' || m === 'dall-e-3';

// openai-node src/resources/images.ts:801-812 (generations) and 664-676 (edits).
const GPT_SIZES = ['1024x1024', '1536x1024', '1024x1536', 'auto'];
const SIZES: Record<string, readonly string[]> = {
  'dall-e-2': ['256x256', '512x512', '1024x1024'],
  'dall-e-3': ['1024x1024', '1792x1024', '1024x1792'],
};

/** Whether `size` is one `model` makes. */
function sizeOk(model: string, size: string): boolean {
  if (model === 'gpt-image-2' || model === 'gpt-image-2-2026-04-21') {
    // Arbitrary WxH: both divisible by 16, ratio 1:3 to 3:1, at most 3840x2160 (images.ts:665-670).
    if (size === 'auto') return true;
    const m = /^(\d+)x(\d+)$/.exec(size);
    if (!m) return false;
    const [w, h] = [Number(m[1]), Number(m[2])];
    const [long, short] = [Math.max(w, h), Math.min(w, h)];
    return w % 16 === 0 && h % 16 === 0 && long <= 3 * short && long <= 3840 && short <= 2160;
  }
  return (SIZES[model] ?? GPT_SIZES).includes(size);
}

/** `quality` per model: generations images.ts:782-791; edits 650-654 (no `hd`). */
function qualities(model: string, edit: boolean): readonly string[] {
  if (model === 'dall-e-2') return ['standard', 'auto'];
  if (model === 'dall-e-3') return edit ? [] : ['standard', 'hd', 'auto'];
  return ['low', 'medium', 'high', 'auto'];
}

/** Longest prompt: images.ts:580-584 (edits) and 720-725 (generations). */
const maxPrompt = (model: string) => (model === 'dall-e-2' ? 1000 : model === 'dall-e-3' ? 4000 : 32000);

/** Members of ImageGenerateParamsBase (images.ts:719-847). */
const GENERATION_PARAMS = new Set([
  'prompt',
  'background',
  'model',
  'moderation',
  'n',
  'output_compression',
  'output_format',
  'partial_images',
  'quality',
  'response_format',
  'size',
  'stream',
  'style',
  'user',
]);

/**
 * Members of ImageEditParamsBase (images.ts:566-692). No `moderation`: it is a generations
 * parameter (images.ts:746-751) and is absent from CreateImageEditRequest (spec:35251-35460); the
 * API answers 400 for it (openai/openai-python#2331).
 */
const EDIT_PARAMS = new Set([
  'image',
  'prompt',
  'background',
  'input_fidelity',
  'mask',
  'model',
  'n',
  'output_compression',
  'output_format',
  'partial_images',
  'quality',
  'response_format',
  'size',
  'stream',
  'user',
]);

/** Parameters only the GPT image models take. */
const GPT_ONLY = [
  'background', // images.ts:727-736, 586-595; spec:35305-35308 "only supported for the GPT image models"
  'moderation', // images.ts:746-751
  'output_format', // images.ts:766-770, 633-638
  'output_compression', // images.ts:759-764, 626-631
  'partial_images', // images.ts:772-780
  'stream', // images.ts:826-831
];

/** The request's parameters as name → value, for either endpoint. */
type Params = Map<string, unknown>;

function checkCommon(model: string, p: Params, edit: boolean): ApiError | undefined {
  const prompt = p.get('prompt');
  if (typeof prompt !== 'string' || !prompt) {
    // `prompt` is required on both (spec:35459-35460; images.ts:584, 725).
    return {
      status: 400,
      message: "Missing required parameter: 'prompt'.",
      param: 'prompt',
      code: 'missing_required_parameter',
    };
  }
  if (p.has('n')) {
    // 1-10 (images.ts:621-624, 753-757); dall-e-3 only n=1 (images.ts:754-755).
    const n = Number(p.get('n'));
    if (!Number.isInteger(n) || n < 1 || n > (model === 'dall-e-3' ? 1 : 10)) return invalidValue('n', p.get('n'));
  }
  if (!isOpenAiModel(model)) return undefined; // a compatible server's model: nothing more is known
  if (prompt.length > maxPrompt(model)) {
    return {
      status: 400,
      message: `Invalid 'prompt': string too long. Expected a string with maximum length ${maxPrompt(model)}, but got a string with length ${prompt.length} instead.`,
      param: 'prompt',
      code: 'string_above_max_length',
    };
  }
  // GPT image models "always return base64-encoded images": response_format is refused
  // (images.ts:793-799; on edits only dall-e-2 takes it, 656-662). Reply: vercel/ai#6102.
  if (p.has('response_format') && (isGpt(model) || (edit && model !== 'dall-e-2'))) {
    return unknownParameter('response_format');
  }
  for (const k of GPT_ONLY) if (p.has(k) && !isGpt(model)) return unknownParameter(k);
  // `style`: dall-e-3 only (images.ts:833-839).
  if (p.has('style') && model !== 'dall-e-3') return unknownParameter('style');
  const size = String(p.get('size') ?? (isGpt(model) ? 'auto' : '1024x1024'));
  if (!sizeOk(model, size)) return invalidValue('size', size, SIZES[model] ?? GPT_SIZES);
  if (p.has('quality') && !qualities(model, edit).includes(String(p.get('quality')))) {
    return invalidValue('quality', p.get('quality'), qualities(model, edit));
  }
  return undefined;
}

function checkGeneration(req: FakeRequest): ApiError | undefined {
  if (!req.json || typeof req.json !== 'object' || Array.isArray(req.json)) {
    return { status: 400, message: 'We could not parse the JSON body of your request.' };
  }
  const p: Params = new Map(Object.entries(req.json as Record<string, unknown>));
  // Default model dall-e-2 (images.ts:739-743; spec:35483).
  const model = String(p.get('model') ?? 'dall-e-2');
  if (isOpenAiModel(model)) for (const k of p.keys()) if (!GENERATION_PARAMS.has(k)) return unknownParameter(k);
  return checkCommon(model, p, false);
}

async function checkEdit(req: FakeRequest): Promise<ApiError | undefined> {
  const form = req.form;
  if (!form) return { status: 400, message: 'Expected a multipart/form-data body.' };
  // Arrays arrive as repeated `image[]` fields, a single Uploadable as `image`
  // (openai-node src/internal/uploads.ts:464-474; tests/internal/uploads-ordering.test.ts:65).
  const files: File[] = [];
  const p: Params = new Map();
  for (const [key, value] of form.entries()) {
    const name = key === 'image[]' ? 'image' : key;
    if (name === 'image') {
      if (typeof value === 'string') return invalidValue('image', 'a text field');
      files.push(value);
    } else p.set(name, value);
  }
  // Default model gpt-image-1.5 (images.ts:613-619; spec:35338).
  const model = String(p.get('model') ?? 'gpt-image-1.5');
  if (isOpenAiModel(model)) for (const k of p.keys()) if (!EDIT_PARAMS.has(k)) return unknownParameter(k);
  // /images/edits takes dall-e-2 or a GPT image model: no dall-e-3 (images.ts:32-35, 613-619).
  if (model === 'dall-e-3') return invalidValue('model', model, ['dall-e-2', ...GPT_MODELS]);
  if (files.length === 0) {
    return {
      status: 400,
      message: "Missing required parameter: 'image'.",
      param: 'image',
      code: 'missing_required_parameter',
    };
  }
  // Up to 16 images (images.ts:572-573; spec:35256 maxItems 16).
  if (files.length > 16) return invalidValue('image', `${files.length} images`);
  const common = checkCommon(model, p, true);
  if (common) return common;
  if (!isOpenAiModel(model)) return undefined;
  // input_fidelity: gpt-image-1, gpt-image-1.5 and later, not gpt-image-1-mini (images.ts:597-603).
  if (p.has('input_fidelity') && (!isGpt(model) || model === 'gpt-image-1-mini')) {
    return unknownParameter('input_fidelity');
  }
  if (model === 'dall-e-2') {
    // "you can only provide one image, and it should be a square `png` file less than 4MB" (images.ts:575-576).
    if (files.length !== 1) return invalidValue('image', `${files.length} images`);
    const bytes = Buffer.from(await (files[0] as File).arrayBuffer());
    const meta = await sharp(bytes)
      .metadata()
      .catch(() => undefined);
    if (meta?.format !== 'png' || meta.width !== meta.height || bytes.length >= 4 * 1024 * 1024) {
      return {
        status: 400,
        message: 'Invalid input image - must be a square PNG file less than 4 MB.',
        param: 'image',
        code: 'invalid_image',
      };
    }
    return undefined;
  }
  // GPT image models: each a png, webp or jpg under 50MB (images.ts:570-573).
  for (const f of files) {
    const bytes = Buffer.from(await f.arrayBuffer());
    const meta = await sharp(bytes)
      .metadata()
      .catch(() => undefined);
    if (!meta || !['png', 'webp', 'jpeg'].includes(meta.format ?? '') || bytes.length >= 50 * 1024 * 1024) {
      return { status: 400, message: `Invalid image file: '${f.name}'.`, param: 'image', code: 'invalid_image_format' };
    }
  }
  return undefined;
}

export async function startOpenAiImagesFake(apiKey = 'sk-test-0123456789abcdef'): Promise<OpenAiFake> {
  let rateLimited = 0;
  const fake = { mode: 'ok' as OpenAiFakeMode };
  const server = await startFakeServer(async (req, res) => {
    if (req.method === 'GET' && req.url.pathname.startsWith('/files/')) {
      if (fake.mode === 'not-an-image-url') return sendBytes(res, NOT_AN_IMAGE, 'image/png');
      const size = /(\d+)x(\d+)/.exec(req.url.pathname);
      return sendBytes(res, await makePng(Number(size?.[1] ?? 64), Number(size?.[2] ?? 64)));
    }
    const isGen = req.method === 'POST' && req.url.pathname === '/v1/images/generations';
    const isEdit = req.method === 'POST' && req.url.pathname === '/v1/images/edits';
    if (!isGen && !isEdit) {
      return sendError(res, { status: 404, message: `Invalid URL (${req.method} ${req.url.pathname})` });
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      return sendError(res, {
        status: 401,
        message: `Incorrect API key provided: ${String(req.headers.authorization).slice(7, 14)}***. You can find your API key at https://platform.openai.com/account/api-keys.`,
        code: 'invalid_api_key',
      });
    }
    const invalid = isGen ? checkGeneration(req) : await checkEdit(req);
    if (invalid) return sendError(res, invalid);

    const model = String((isGen ? req.json?.model : req.form?.get('model')) ?? (isGen ? 'dall-e-2' : 'gpt-image-1.5'));
    const requested = String((isGen ? req.json?.size : req.form?.get('size')) ?? '1024x1024');
    const size = requested === 'auto' ? '1024x1024' : requested;
    const [w, h] = size.split('x').map(Number) as [number, number];
    switch (fake.mode) {
      case 'rate-limit-then-ok':
        if (rateLimited++ === 0) {
          return sendError(
            res,
            {
              status: 429,
              message: 'Rate limit reached for images per minute',
              type: 'requests',
              code: 'rate_limit_exceeded',
            },
            { 'retry-after': '2' },
          );
        }
        break;
      case 'always-429':
        return sendError(
          res,
          { status: 429, message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' },
          { 'retry-after': '0' },
        );
      case 'quota':
        // The body the API sends when the account is out of credit (NVIDIA-NeMo/Guardrails#371,
        // langchainjs#1929): a 429 that waiting does not cure.
        return sendError(
          res,
          {
            status: 429,
            message:
              'You exceeded your current quota, please check your plan and billing details. For more information on this error, read the docs: https://platform.openai.com/docs/guides/error-codes/api-errors.',
            type: 'insufficient_quota',
            code: 'insufficient_quota',
          },
          { 'retry-after': '0' },
        );
      case 'server-error':
        return sendError(res, {
          status: 500,
          message: 'The server had an error while processing your request.',
          type: 'server_error',
        });
      case 'server-error-no-retry':
        // The server's word wins over the status (openai-node src/client.ts:1243-1249).
        return sendError(
          res,
          { status: 500, message: 'The server had an error while processing your request.', type: 'server_error' },
          { 'x-should-retry': 'false' },
        );
      case 'slow':
        return later(res, 3000, () => sendError(res, { status: 500, message: 'too late', type: 'server_error' }));
      case 'malformed-json':
        return sendBytes(res, '{"created": 1, "data": [', 'application/json');
      case 'missing-image':
        return sendJson(res, 200, { created: 1, data: [{ revised_prompt: 'nothing' }] });
      case 'not-an-image':
        return sendJson(res, 200, { created: 1, data: [{ b64_json: NOT_AN_IMAGE.toString('base64') }] });
      case 'content-policy':
        // ucx0204/CarrotMangaTranslator#122 (a real moderation refusal).
        return sendError(res, {
          status: 400,
          message:
            'Your request was rejected by the safety system. Your request may contain content that is not allowed.',
          type: 'image_generation_user_error',
          code: 'moderation_blocked',
        });
      case 'bad-request':
        return sendError(res, invalidValue('size', '999x999', ['1024x1024']));
      default:
        break;
    }
    const responseFormat = isGen ? req.json?.response_format : req.form?.get('response_format');
    // dall-e answers a URL unless asked for b64_json; GPT image models always base64 (images.ts:106-124).
    const asUrl =
      fake.mode === 'url' ||
      fake.mode === 'not-an-image-url' ||
      (model.startsWith('dall-e') && responseFormat !== 'b64_json');
    if (asUrl) {
      return sendJson(res, 200, { created: 1, data: [{ url: `${server.origin}/files/result-${w}x${h}.png` }] });
    }
    const png = await makePng(w, h);
    return sendJson(res, 200, {
      created: 1,
      data: [{ b64_json: png.toString('base64') }],
      // ImagesResponse.usage, input_tokens_details required (images.ts:465-490).
      ...(isGpt(model)
        ? {
            usage: {
              total_tokens: 100,
              input_tokens: 50,
              output_tokens: 50,
              input_tokens_details: { image_tokens: 40, text_tokens: 10 },
            },
          }
        : {}),
    });
  });
  return {
    ...server,
    baseUrl: `${server.origin}/v1`,
    calls: () => server.requests.filter((r) => r.url.pathname.startsWith('/v1/')),
    get mode() {
      return fake.mode;
    },
    set mode(m: OpenAiFakeMode) {
      fake.mode = m;
      rateLimited = 0;
    },
  };
}
