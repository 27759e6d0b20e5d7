import { type FakeServer, later, makePng, NOT_AN_IMAGE, sendBytes, sendJson, startFakeServer } from './fake-http.ts';

/**
 * A fake OpenAI Images API (`/v1/images/generations` JSON, `/v1/images/edits` multipart), Bearer
 * auth, answering `data[0].b64_json` (or `data[0].url` on this server) with a real PNG of the
 * requested `size`. `mode` picks a failure.
 */
export type OpenAiFakeMode =
  | 'ok'
  | 'url'
  | 'rate-limit-then-ok'
  | 'always-429'
  | 'server-error'
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
    if (!isGen && !isEdit)
      return sendJson(res, 404, { error: { message: 'Not found', type: 'invalid_request_error' } });
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      return sendJson(res, 401, {
        error: {
          message: `Incorrect API key provided: ${String(req.headers.authorization).slice(7, 14)}***. You can find your API key at https://platform.openai.com/account/api-keys.`,
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      });
    }
    const size = String((isGen ? req.json?.size : req.form?.get('size')) ?? '1024x1024');
    const [w, h] = size.split('x').map(Number) as [number, number];
    switch (fake.mode) {
      case 'rate-limit-then-ok':
        if (rateLimited++ === 0) {
          return sendJson(
            res,
            429,
            {
              error: {
                message: 'Rate limit reached for images per minute',
                type: 'requests',
                code: 'rate_limit_exceeded',
              },
            },
            { 'retry-after': '2' },
          );
        }
        break;
      case 'always-429':
        return sendJson(
          res,
          429,
          { error: { message: 'Rate limit reached', code: 'rate_limit_exceeded' } },
          { 'retry-after': '0' },
        );
      case 'server-error':
        return sendJson(res, 500, {
          error: { message: 'The server had an error while processing your request.', type: 'server_error' },
        });
      case 'slow':
        return later(res, 3000, () => sendJson(res, 500, { error: { message: 'too late' } }));
      case 'malformed-json':
        return sendBytes(res, '{"created": 1, "data": [', 'application/json');
      case 'missing-image':
        return sendJson(res, 200, { created: 1, data: [{ revised_prompt: 'nothing' }] });
      case 'not-an-image':
        return sendJson(res, 200, { created: 1, data: [{ b64_json: NOT_AN_IMAGE.toString('base64') }] });
      case 'content-policy':
        return sendJson(res, 400, {
          error: {
            message:
              'Your request was rejected by the safety system. Your request may contain content that is not allowed.',
            type: 'image_generation_user_error',
            param: null,
            code: 'moderation_blocked',
          },
        });
      case 'bad-request':
        return sendJson(res, 400, {
          error: {
            message: "Invalid value: '999x999'. Supported values are: '1024x1024'.",
            type: 'invalid_request_error',
            param: 'size',
            code: 'invalid_value',
          },
        });
      default:
        break;
    }
    if (fake.mode === 'url' || fake.mode === 'not-an-image-url') {
      return sendJson(res, 200, { created: 1, data: [{ url: `${server.origin}/files/result-${w}x${h}.png` }] });
    }
    const png = await makePng(w, h);
    return sendJson(res, 200, {
      created: 1,
      data: [{ b64_json: png.toString('base64') }],
      usage: { total_tokens: 100, input_tokens: 50, output_tokens: 50 },
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
