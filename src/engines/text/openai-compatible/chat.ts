import type { TSchema } from 'typebox';
import type { Fetcher } from '../../../adapters/fetch/fetcher.ts';

/**
 * The plumbing every OpenAI-compatible text adapter shares: one POST to `<baseUrl>/chat/completions`
 * with a strict JSON-schema `response_format`, through the one bounded fetcher, and the reading of
 * the first choice's content as JSON checked against that schema. Every failure is a
 * TextEngineError, which callers treat as "use the local engine".
 */
export class TextEngineError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TextEngineError';
  }
}

export interface ChatEndpointSettings {
  /** e.g. https://api.openai.com/v1 (the `/chat/completions` path is appended). */
  baseUrl: string;
  apiKey?: string;
  model: string;
  timeoutMs?: number;
}

export interface ChatRequest {
  system: string;
  user: string;
  temperature: number;
  /** `response_format.json_schema.name`. */
  schemaName: string;
  schema: TSchema;
  /** Used when the settings name no timeout. */
  defaultTimeoutMs: number;
  signal?: AbortSignal | undefined;
}

export const chatCompletionsUrl = (baseUrl: string): string => `${baseUrl.replace(/\/+$/, '')}/chat/completions`;

/**
 * Models at an endpoint that refused a sampling parameter (`temperature`) with a 400: reasoning
 * models (gpt-5, the o-series) accept only the default and answer
 * `{ error: { type: 'invalid_request_error', code: 'unsupported_value', param: 'temperature' } }`.
 * Remembered for the process (`<chat completions URL>|<model>`) so each later call is sent
 * without it at once.
 */
const samplingRefused = new Set<string>();

/** Forgets what `postChatCompletion` learnt of models (tests). */
export function resetChatModelMemory(): void {
  samplingRefused.clear();
}

/** Whether a 400 body refuses a sampling parameter (OpenAI's `unsupported_value`/`unsupported_parameter`). */
export function refusesSampling(body: Buffer): boolean {
  let e: { code?: unknown; param?: unknown; message?: unknown } | undefined;
  try {
    e = (JSON.parse(body.toString('utf8')) as { error?: typeof e }).error;
  } catch {
    return false;
  }
  if (!e || typeof e !== 'object') return false;
  const param = typeof e.param === 'string' ? e.param : '';
  const code = typeof e.code === 'string' ? e.code : '';
  const message = typeof e.message === 'string' ? e.message : '';
  if (param === 'temperature' || param === 'top_p') return /^unsupported_(value|parameter)$/.test(code) || !code;
  return /unsupported_(value|parameter)/.test(code) && /\btemperature\b/.test(message);
}

/**
 * Sends one chat completion; the raw response body of a status < 400, else a TextEngineError.
 * A model that refuses `temperature` (see `samplingRefused`) is asked once more without it.
 */
export async function postChatCompletion(
  settings: ChatEndpointSettings,
  fetcher: Fetcher,
  req: ChatRequest,
): Promise<Buffer> {
  const url = chatCompletionsUrl(settings.baseUrl);
  const memo = `${url}|${settings.model}`;
  const timeoutMs = settings.timeoutMs ?? req.defaultTimeoutMs;
  const deadline = Date.now() + timeoutMs;
  const send = async (withSampling: boolean) => {
    const body = {
      model: settings.model,
      ...(withSampling ? { temperature: req.temperature } : {}),
      messages: [
        { role: 'system', content: req.system },
        { role: 'user', content: req.user },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: req.schemaName, strict: true, schema: req.schema },
      },
    };
    const left = Math.max(1, deadline - Date.now());
    try {
      return await fetcher.fetch(url, {
        method: 'POST',
        body: JSON.stringify(body),
        headers: {
          'content-type': 'application/json',
          ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
        },
        accept: 'application/json',
        timeoutMs: left,
        idleTimeoutMs: left,
        maxBytes: 2 * 1024 * 1024,
        throwOnHttpError: false,
        ...(req.signal ? { signal: req.signal } : {}),
      });
    } catch (err) {
      throw new TextEngineError(`The text engine could not be reached: ${(err as Error).message}`, { cause: err });
    }
  };
  const withSampling = !samplingRefused.has(memo);
  let res = await send(withSampling);
  if (res.status === 400 && withSampling && refusesSampling(res.body)) {
    samplingRefused.add(memo);
    res = await send(false);
  }
  if (res.status === 401 || res.status === 403) {
    // Not repeated: some servers echo part of the key.
    throw new TextEngineError(`The text engine refused the API key (HTTP ${res.status}); check LLM_API_KEY`);
  }
  if (res.status >= 400) {
    throw new TextEngineError(`The text engine answered HTTP ${res.status}: ${apiErrorMessage(res.body)}`);
  }
  return res.body;
}

function apiErrorMessage(body: Buffer): string {
  try {
    const j = JSON.parse(body.toString('utf8')) as { error?: { message?: unknown } };
    if (typeof j.error?.message === 'string') return j.error.message.slice(0, 200);
  } catch {
    // not JSON
  }
  return body.toString('utf8').slice(0, 200);
}

/** The first choice's message content, parsed as JSON (not yet checked). */
export function chatContent(body: Buffer): unknown {
  let envelope: unknown;
  try {
    envelope = JSON.parse(body.toString('utf8'));
  } catch {
    throw new TextEngineError('The text engine did not answer JSON');
  }
  const choice = (envelope as { choices?: { message?: { content?: unknown; refusal?: unknown } }[] } | null)
    ?.choices?.[0];
  const msg = choice?.message;
  if (typeof msg?.refusal === 'string' && msg.refusal)
    throw new TextEngineError(`The model refused: ${msg.refusal.slice(0, 200)}`);
  if (typeof msg?.content !== 'string') throw new TextEngineError('The text engine answer has no message content');
  try {
    // Some servers wrap JSON in a Markdown fence even in JSON mode.
    return JSON.parse(msg.content.replace(/^\s*```(?:json)?\s*|\s*```\s*$/g, ''));
  } catch {
    throw new TextEngineError('The model answer is not JSON');
  }
}

/** `content` when it matches the compiled schema, else a TextEngineError naming the first mismatch. */
export function checkContent<T>(
  check: { Check(value: unknown): value is T; Errors(value: unknown): { instancePath: string; message: string }[] },
  content: unknown,
): T {
  if (!check.Check(content)) {
    const first = [...check.Errors(content)][0];
    throw new TextEngineError(
      `The model answer does not match the schema${first ? ` (${first.instancePath || '/'} ${first.message})` : ''}`,
    );
  }
  return content;
}

/** One chat completion whose answer is the first choice's content checked against `check` (see above). */
export async function askChat<T>(
  settings: ChatEndpointSettings,
  fetcher: Fetcher,
  req: ChatRequest,
  check: Parameters<typeof checkContent<T>>[0],
): Promise<T> {
  return checkContent(check, chatContent(await postChatCompletion(settings, fetcher, req)));
}
