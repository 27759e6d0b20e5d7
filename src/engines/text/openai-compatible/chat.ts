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

/** Sends one chat completion; the raw response body of a status < 400, else a TextEngineError. */
export async function postChatCompletion(
  settings: ChatEndpointSettings,
  fetcher: Fetcher,
  req: ChatRequest,
): Promise<Buffer> {
  const body = {
    model: settings.model,
    temperature: req.temperature,
    messages: [
      { role: 'system', content: req.system },
      { role: 'user', content: req.user },
    ],
    response_format: {
      type: 'json_schema',
      json_schema: { name: req.schemaName, strict: true, schema: req.schema },
    },
  };
  const timeoutMs = settings.timeoutMs ?? req.defaultTimeoutMs;
  let res: Awaited<ReturnType<Fetcher['fetch']>>;
  try {
    res = await fetcher.fetch(chatCompletionsUrl(settings.baseUrl), {
      method: 'POST',
      body: JSON.stringify(body),
      headers: {
        'content-type': 'application/json',
        ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
      },
      accept: 'application/json',
      timeoutMs,
      idleTimeoutMs: timeoutMs,
      maxBytes: 2 * 1024 * 1024,
      throwOnHttpError: false,
      ...(req.signal ? { signal: req.signal } : {}),
    });
  } catch (err) {
    throw new TextEngineError(`The text engine could not be reached: ${(err as Error).message}`, { cause: err });
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
