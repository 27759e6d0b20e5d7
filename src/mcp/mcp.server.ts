import path from 'node:path';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance } from 'fastify';
import type { Fetcher } from '../adapters/fetch/fetcher.ts';
import { can, type Permission } from '../modules/access/access.roles.ts';
import { isTerminalStatus } from '../events/publish.ts';
import type { JsonSchema, RouteCatalog } from './route-catalog.ts';
import {
  DEFAULT_WAIT_SECONDS,
  MAX_WAIT_SECONDS,
  progressOf,
  statusOf,
  TASK_KINDS,
  isTaskKind,
  TaskInput,
  WaitInput,
} from './tasks.ts';
import {
  BadPathArgument,
  compactSchema,
  inputSchemaOf,
  requestOf,
  ROUTE_TOOLS,
  DEFAULT_TOOLSETS,
  type Toolset,
  UnknownArguments,
  VIEW_MEMBER,
} from './tools.ts';
import { compactView } from './views.ts';

/**
 * The agent-tool server (Model Context Protocol) of one HTTP request: every tool is a call of the
 * REST route it wraps, made in-process (`app.inject`) with the caller's own API key, so authentication,
 * roles, plan features, quotas, rate limits and organization scoping are exactly the REST ones,
 * and errors come back as tool errors carrying the REST code, message, details and requestId.
 */
export interface McpServerDeps {
  app: FastifyInstance;
  catalog: RouteCatalog;
  /** The caller's Authorization header, passed on to every route call. */
  authorization: string;
  /** The caller's role: the tool list shows only the tools it may use. */
  role: string;
  /** The toolsets listed (the `toolsets` query member; DEFAULT_TOOLSETS when absent). */
  toolsets?: readonly Toolset[];
  /** The SSRF-safe fetcher (upload from URL). */
  fetcher: Fetcher;
  version: string;
  /** Poll interval of wait_for_task (tests shorten it). */
  pollMs?: number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
}

/** Largest file assets_upload_from_url fetches, and assets_upload_base64 accepts (decoded). */
export const MAX_TOOL_UPLOAD_BYTES = 50 * 1024 * 1024;
const RESOURCE_TEMPLATE = 'atelier://assets/{assetId}';
/** MCP's "resource not found" error code (server/resources in the MCP specification). */
const RESOURCE_NOT_FOUND = -32002;

interface RestResult {
  status: number;
  body: unknown;
}

/** A tool error carrying the REST error (or one of the tool's own, in the same shape). */
function toolError(status: number, code: string, message: string, extra: Record<string, unknown> = {}): CallToolResult {
  const error = { status, code, message, ...extra };
  return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error }) }], structuredContent: { error } };
}

/**
 * A tool's answer: one text item, pure JSON, the same object as the structured content. What to
 * do next, when there is something, is its `next` member.
 */
function toolResult(body: unknown, next?: string): CallToolResult {
  const base =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as Record<string, unknown>)
      : { value: body };
  const structured = next ? { ...base, next } : base;
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
}

/** The view an agent asked for (compact unless `view: "full"`). */
const viewOf = (args: Record<string, unknown>, body: unknown, list = false) =>
  args.view === 'full' ? body : compactView(body, { list });

function fromRest(r: RestResult, note?: string, view: (body: unknown) => unknown = (b) => b): CallToolResult {
  if (r.status < 400) return toolResult(view(r.body ?? { status: r.status }), note);
  const b = (r.body ?? {}) as { requestId?: string; error?: { code?: string; message?: string; details?: unknown } };
  return toolError(r.status, b.error?.code ?? 'ERROR', b.error?.message ?? `HTTP ${r.status}`, {
    ...(b.error?.details !== undefined ? { details: b.error.details } : {}),
    ...(b.requestId ? { requestId: b.requestId } : {}),
  });
}

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

const defaultSleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(t);
        resolve();
      },
      { once: true },
    );
  });

const UploadBase: Record<string, JsonSchema> = {
  brandId: { type: 'string', format: 'uuid', description: 'The brand the asset belongs to' },
  fileName: { type: 'string', minLength: 1, maxLength: 1024, description: 'File name, e.g. cap.png' },
  isLogo: { type: 'boolean', description: 'The file is the brand’s logo' },
};

export function createMcpServer(deps: McpServerDeps): Server {
  const server = new Server(
    { name: 'atelier', version: deps.version },
    {
      capabilities: { tools: {}, resources: {} },
      instructions:
        'Atelier makes on-brand product creatives. Typical flow: brands_list (or brands_create) → put a product photo in ' +
        '(assets_upload_from_url or assets_upload_base64, then wait_for_task kind "asset") → scenes_create with productAssetIds ' +
        '→ wait_for_task kind "scene_forge" → videos_generate with a variation’s asset id as startImageAssetId → wait_for_task ' +
        'kind "video_group". Results carry signed links (asset.url); read atelier://assets/{assetId} for fresh ones. ' +
        'Answers are compact (ids, status, scores, links, one line per critique score; lists 5 to a page): pass ' +
        'view "full" for the whole REST answer, page/limit for more.',
    },
  );
  const pollMs = deps.pollMs ?? 1000;
  const sleep = deps.sleep ?? defaultSleep;

  async function rest(
    method: string,
    url: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<RestResult> {
    const res = await deps.app.inject({
      method: method as 'GET',
      url,
      headers: {
        ...headers,
        authorization: deps.authorization,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    let parsed: unknown;
    try {
      parsed = res.body ? JSON.parse(res.body) : undefined;
    } catch {
      parsed = res.body;
    }
    return { status: res.statusCode, body: parsed };
  }

  /** initiate-upload → PUT the bytes to the signed link → confirm-upload; the asset, processing. */
  async function uploadBytes(
    args: Record<string, unknown>,
    bytes: Buffer,
    contentType: string,
  ): Promise<CallToolResult> {
    const fileName = str(args.fileName) ?? 'upload';
    const init = await rest('POST', '/v1/assets/initiate-upload', {
      brandId: args.brandId,
      files: [{ fileName, fileType: contentType, fileSize: bytes.length, ...(args.isLogo ? { isLogo: true } : {}) }],
    });
    if (init.status >= 400) return fromRest(init);
    const slot = (
      init.body as {
        uploads: {
          uploadUrl: string;
          uploadId: string;
          uploadHeaders?: Record<string, string>;
          uploadMethod?: string;
        }[];
      }
    ).uploads[0]!;
    const link = new URL(slot.uploadUrl);
    const putHeaders = { ...(slot.uploadHeaders ?? {}) };
    if (link.pathname.startsWith('/v1/blobs/')) {
      // This server's own signed link (local storage): in-process, like every other call.
      const put = await deps.app.inject({
        method: (slot.uploadMethod ?? 'PUT') as 'PUT',
        url: link.pathname + link.search,
        headers: putHeaders,
        payload: bytes,
      });
      if (put.statusCode >= 300) return fromRest({ status: put.statusCode, body: JSON.parse(put.body || '{}') });
    } else {
      // Object storage's presigned link (S3): the operator's endpoint.
      const put = await fetch(slot.uploadUrl, { method: slot.uploadMethod ?? 'PUT', headers: putHeaders, body: bytes });
      if (!put.ok) return toolError(502, 'UPLOAD_FAILED', `The storage refused the upload (HTTP ${put.status})`);
    }
    const confirmed = await rest('POST', '/v1/assets/confirm-upload', { uploadId: slot.uploadId });
    return fromRest(
      confirmed,
      'The asset is processing: wait_for_task with kind "asset" and this id until it is complete.',
      (body) => viewOf(args, body),
    );
  }

  async function uploadFromUrl(args: Record<string, unknown>): Promise<CallToolResult> {
    const url = str(args.url);
    if (!url) return toolError(400, 'INVALID_REQUEST', 'url is required');
    let fetched: Awaited<ReturnType<Fetcher['fetch']>>;
    try {
      fetched = await deps.fetcher.fetch(url, { maxBytes: MAX_TOOL_UPLOAD_BYTES, timeoutMs: 60_000 });
    } catch (err) {
      const e = err as { code?: string; message?: string };
      return toolError(400, 'URL_NOT_FETCHED', `The file could not be fetched: ${e.message ?? String(err)}`, {
        ...(e.code ? { reason: e.code } : {}),
      });
    }
    const fromUrl = path.posix.basename(new URL(fetched.url).pathname) || 'download';
    return uploadBytes(
      { ...args, fileName: str(args.fileName) ?? fromUrl },
      fetched.body,
      fetched.contentType ?? 'application/octet-stream',
    );
  }

  async function uploadBase64(args: Record<string, unknown>): Promise<CallToolResult> {
    const data = str(args.dataBase64) ?? '';
    if (!/^[A-Za-z0-9+/=\s]*$/.test(data)) return toolError(400, 'INVALID_REQUEST', 'dataBase64 is not base64');
    const bytes = Buffer.from(data, 'base64');
    if (bytes.length === 0) return toolError(400, 'INVALID_REQUEST', 'dataBase64 is empty');
    if (bytes.length > MAX_TOOL_UPLOAD_BYTES) {
      return toolError(
        413,
        'PAYLOAD_TOO_LARGE',
        `At most ${MAX_TOOL_UPLOAD_BYTES} bytes; use assets_initiate_upload for larger files`,
      );
    }
    return uploadBytes(args, bytes, str(args.contentType) ?? 'application/octet-stream');
  }

  function taskPath(args: Record<string, unknown>): { path: string } | CallToolResult {
    const name = str(args.kind) ?? '';
    if (!isTaskKind(name)) {
      return toolError(400, 'INVALID_REQUEST', `kind must be one of ${Object.keys(TASK_KINDS).join(', ')}`);
    }
    const kind = TASK_KINDS[name];
    const id = str(args.id);
    if (!id) return toolError(400, 'INVALID_REQUEST', 'id is required');
    const brandId = str(args.brandId);
    if (kind.needsBrand && !brandId)
      return toolError(400, 'INVALID_REQUEST', `brandId is required for kind ${String(args.kind)}`);
    try {
      return { path: kind.path(id, brandId) };
    } catch (err) {
      if (err instanceof BadPathArgument)
        return toolError(400, 'INVALID_REQUEST', err.message, { fields: [err.field] });
      throw err;
    }
  }

  async function getTask(args: Record<string, unknown>): Promise<CallToolResult> {
    const t = taskPath(args);
    if ('content' in t) return t;
    const r = await rest('GET', t.path);
    if (r.status >= 400) return fromRest(r);
    const status = statusOf(r.body);
    return toolResult({ done: isTerminalStatus(status), status, resource: viewOf(args, r.body) });
  }

  async function waitForTask(
    args: Record<string, unknown>,
    extra: {
      signal: AbortSignal;
      _meta?: { progressToken?: string | number };
      sendNotification: (n: never) => Promise<void>;
    },
  ): Promise<CallToolResult> {
    const t = taskPath(args);
    if ('content' in t) return t;
    const timeout = Math.min(
      MAX_WAIT_SECONDS,
      Math.max(1, Number(args.timeoutSeconds ?? DEFAULT_WAIT_SECONDS) || DEFAULT_WAIT_SECONDS),
    );
    const deadline = Date.now() + timeout * 1000;
    const token = extra._meta?.progressToken;
    let last = -1;
    for (;;) {
      const r = await rest('GET', t.path);
      if (r.status >= 400) return fromRest(r);
      const status = statusOf(r.body);
      const done = isTerminalStatus(status);
      const progress = progressOf(r.body);
      if (token !== undefined && progress !== last) {
        last = progress;
        await extra
          .sendNotification({
            method: 'notifications/progress',
            params: {
              progressToken: token,
              progress: Math.round(progress * 100),
              total: 100,
              message: `status: ${status ?? 'unknown'}`,
            },
          } as never)
          .catch(() => undefined);
      }
      if (done || Date.now() >= deadline || extra.signal.aborted) {
        return toolResult(
          { done, status, resource: viewOf(args, r.body) },
          done ? undefined : `Still ${status ?? 'running'} after ${timeout} s: call wait_for_task again.`,
        );
      }
      await sleep(pollMs, extra.signal);
    }
  }

  const { tools, byName, permissions } = toolCatalog(deps.catalog);

  // A key sees the tools its role may call (a viewer's agent is not offered writes it would be refused).
  // Tools outside the asked-for toolsets are not listed (they can still be called).
  const listed = deps.toolsets ?? DEFAULT_TOOLSETS;
  const mayUse = (t: Tool) => {
    const permission = permissions.get(t.name);
    const inSet = listed.includes(byName.get(t.name)?.tool.toolset ?? 'core');
    return inSet && (permission === undefined || can(deps.role, permission as Permission));
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: tools.filter(mayUse) }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name } = request.params;
    const args = (request.params.arguments ?? {}) as Record<string, unknown>;
    switch (name) {
      case 'assets_upload_from_url':
        return uploadFromUrl(args);
      case 'assets_upload_base64':
        return uploadBase64(args);
      case 'get_task':
        return getTask(args);
      case 'wait_for_task':
        return waitForTask(args, extra as never);
    }
    const entry = byName.get(name);
    if (!entry) return toolError(404, 'UNKNOWN_TOOL', `No tool named ${name}; list the tools to see them`);
    let req: ReturnType<typeof requestOf>;
    try {
      req = requestOf(entry.tool, entry.route, args);
    } catch (err) {
      if (err instanceof UnknownArguments) return toolError(400, 'INVALID_REQUEST', err.message, { fields: err.names });
      if (err instanceof BadPathArgument)
        return toolError(400, 'INVALID_REQUEST', err.message, { fields: [err.field] });
      throw err;
    }
    const r = await rest(req.method, req.url, req.body, req.headers);
    const poll =
      entry.tool.poll && entry.tool.method !== 'GET'
        ? `Poll with wait_for_task(kind "${entry.tool.poll}").`
        : undefined;
    return fromRest(r, r.status < 400 ? poll : undefined, (body) => viewOf(args, body, entry.tool.list));
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: [] }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: RESOURCE_TEMPLATE,
        name: 'asset',
        title: 'An asset with fresh signed links',
        description:
          'Any asset of your organization — uploads and generated scenes, environments and videos — as JSON with fresh signed `url` and `thumbnailUrl` links to show or download it.',
        mimeType: 'application/json',
      },
    ],
  }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    const m =
      /^atelier:\/\/assets\/([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/.exec(uri);
    if (!m) throw new McpError(RESOURCE_NOT_FOUND, `Unknown resource ${uri}; use ${RESOURCE_TEMPLATE}`, { uri });
    const r = await rest('GET', `/v1/assets/${m[1]}`);
    if (r.status >= 400) {
      const b = r.body as { requestId?: string; error?: { code?: string; message?: string } };
      const code =
        r.status === 404 ? RESOURCE_NOT_FOUND : r.status < 500 ? ErrorCode.InvalidParams : ErrorCode.InternalError;
      throw new McpError(code, b.error?.message ?? `HTTP ${r.status}`, {
        uri,
        status: r.status,
        ...(b.error?.code ? { code: b.error.code } : {}),
        ...(b.requestId ? { requestId: b.requestId } : {}),
      });
    }
    return { contents: [{ uri: request.params.uri, mimeType: 'application/json', text: JSON.stringify(r.body) }] };
  });

  return server;
}

/**
 * A tool's input schema as listed: compact (tools.ts). Unknown members are refused by the server
 * with their names (UnknownArguments), so the list does not spell out `additionalProperties`.
 */
const agentSchema = (schema: JsonSchema) => compactSchema(schema);

const catalogs = new WeakMap<RouteCatalog, ReturnType<typeof buildToolCatalog>>();

/**
 * The tool list and the route of each route tool, made once per app (the routes' schemas do not
 * change after start) rather than on every MCP request.
 */
export function toolCatalog(catalog: RouteCatalog) {
  let built = catalogs.get(catalog);
  if (!built) {
    built = buildToolCatalog(catalog);
    catalogs.set(catalog, built);
  }
  return built;
}

function buildToolCatalog(catalog: RouteCatalog) {
  const routeTools = ROUTE_TOOLS.map((tool) => {
    const route = catalog.get(tool.method, tool.url);
    if (!route) throw new Error(`MCP tool ${tool.name}: no route ${tool.method} ${tool.url}`);
    const extraMembers = {
      ...Object.fromEntries(Object.entries(tool.headers ?? {}).map(([k, v]) => [k, v.schema])),
      ...(tool.list ? { view: VIEW_MEMBER } : {}),
    };
    return { tool, route, inputSchema: agentSchema(inputSchemaOf(route, extraMembers, tool)) };
  });
  const byName = new Map(routeTools.map((t) => [t.tool.name, t]));
  // The permission each tool needs: its route's; the upload tools need what initiate-upload needs.
  const uploadPermission = catalog.get('POST', '/v1/assets/initiate-upload')?.permission;
  const permissions = new Map<string, string | undefined>([
    ...routeTools.map(({ tool, route }) => [tool.name, route.permission] as const),
    ['assets_upload_from_url', uploadPermission],
    ['assets_upload_base64', uploadPermission],
  ]);

  const tools: Tool[] = [
    ...routeTools.map(({ tool, inputSchema }) => ({
      name: tool.name,
      description: tool.about,
      inputSchema: inputSchema as Tool['inputSchema'],
      // Reads are read-only; writes other than DELETE are not destructive; a DELETE says that it
      // is (MCP's default, spelled out).
      annotations:
        tool.method === 'GET'
          ? { readOnlyHint: true }
          : tool.method === 'DELETE'
            ? { destructiveHint: true }
            : { destructiveHint: false },
    })),
    {
      name: 'assets_upload_from_url',
      description:
        'Add a file on the web (a product photo, a logo) to a brand as an asset; the server fetches it (public addresses, ' +
        `at most ${MAX_TOOL_UPLOAD_BYTES / 1024 / 1024} MB). Returns the asset, processing: wait_for_task(kind "asset") before using it.`,
      inputSchema: agentSchema({
        type: 'object',
        properties: {
          ...UploadBase,
          url: { type: 'string', format: 'uri', description: 'http(s) URL of the file itself' },
          view: VIEW_MEMBER,
        },
        required: ['brandId', 'url'],
        additionalProperties: false,
      }) as Tool['inputSchema'],
      annotations: { openWorldHint: true },
    },
    {
      name: 'assets_upload_base64',
      description:
        'Put a file you hold (a product photo) into a brand as an asset, its bytes sent as base64 (at most ' +
        `${MAX_TOOL_UPLOAD_BYTES / 1024 / 1024} MB decoded). Returns the asset (processing): wait_for_task(kind "asset").`,
      inputSchema: agentSchema({
        type: 'object',
        properties: {
          ...UploadBase,
          contentType: { type: 'string', description: 'MIME type, e.g. image/png' },
          dataBase64: { type: 'string', description: 'The file’s bytes, base64' },
          view: VIEW_MEMBER,
        },
        required: ['brandId', 'fileName', 'contentType', 'dataBase64'],
        additionalProperties: false,
      }) as Tool['inputSchema'],
    },
    {
      name: 'get_task',
      description:
        'Read a pollable resource once, without waiting (members as wait_for_task): {done, status, resource}.',
      inputSchema: agentSchema(TaskInput) as Tool['inputSchema'],
      annotations: { readOnlyHint: true },
    },
    {
      name: 'wait_for_task',
      description:
        'Wait until a pollable resource is done (completed, ready, complete or failed), with progress notifications; ' +
        'returns {done, status, resource}. When done is false, call it again.',
      inputSchema: agentSchema(WaitInput) as Tool['inputSchema'],
      annotations: { readOnlyHint: true },
    },
  ];
  return { tools, byName, permissions };
}
