import type { JsonSchema, RouteSchemas } from './route-catalog.ts';

/**
 * The agent tools that map one to one onto REST routes: a name, the route, and a description
 * written for a model (when to use it, what comes back, what to poll). The routes that read one
 * pollable resource by id have no tool of their own: `get_task` and `wait_for_task` read them
 * all (tasks.ts), and the legacy flat DNA view is `dna_active_get`'s older shape. The input schema of each
 * is the route's own params, query and body schemas merged (see inputSchemaOf), so a tool takes
 * exactly what the route takes. Pure data and pure functions; the server calls the route.
 */
export interface RouteTool {
  name: string;
  method: string;
  /** Fastify form, as the route was registered. */
  url: string;
  about: string;
  /** The wait_for_task kind of what this tool creates or reads, when it is pollable. */
  poll?: string;
  /** Extra members that go in headers (name → header). */
  headers?: Record<string, { header: string; schema: JsonSchema }>;
  /** Route members the tool does not offer (operator switches: an agent's key never needs them). */
  omit?: readonly string[];
  /** Route member → the tool's name for it (a bare `id` named for what it is). */
  rename?: Readonly<Record<string, string>>;
  /** Values the tool sends when the agent leaves a member out (the member is then optional). */
  defaults?: Readonly<Record<string, unknown>>;
  /** A list route: the answer is a page, `limit` defaults to LIST_LIMIT. */
  list?: boolean;
  /** Member → the description the tool gives it instead of the route's (said once, elsewhere). */
  describe?: Readonly<Record<string, string>>;
  /** The toolset the tool is listed in (TOOLSETS); `core` unless said. */
  toolset?: Toolset;
}

/**
 * The groups of tools a client may ask to be listed (`/mcp?toolsets=core,dna` or `all`), so an
 * agent's context holds what it uses. `core`, the default, is what a creative agent does: brands,
 * assets by URL or base64, URL extraction, Brand DNA runs and their activation, scenes, environments, prompts, videos,
 * usage and tasks. `uploads` is the three-step signed upload, for clients that PUT bytes
 * themselves; `dna` curates Brand DNA versions (list, edit, cancel, re-run, delete);
 * `webhooks` is the integration set-up a developer does once.
 */
export const TOOLSETS = ['core', 'uploads', 'dna', 'webhooks'] as const;
export type Toolset = (typeof TOOLSETS)[number];
export const DEFAULT_TOOLSETS: readonly Toolset[] = ['core'];

/** `core,webhooks` or `all` (checked by the route's query schema) → the toolsets. */
export function parseToolsets(value: string | undefined): readonly Toolset[] {
  if (value === undefined || value.trim() === '') return DEFAULT_TOOLSETS;
  const names = value.split(',').map((x) => x.trim());
  if (names.includes('all')) return TOOLSETS;
  return names.filter((x): x is Toolset => (TOOLSETS as readonly string[]).includes(x));
}

/** The page size list tools ask for unless the agent names one. */
export const LIST_LIMIT = 5;

/**
 * A list tool over a route with both sort vocabularies: it offers the one of every list
 * (`sort: "-updatedAt"`), not the route's older sortBy/sortOrder pair.
 */
const SORTED_LIST = { omit: ['sortBy', 'sortOrder'], describe: { sort: '' }, list: true } as const;

export const ROUTE_TOOLS: readonly RouteTool[] = [
  // Brands
  {
    name: 'brands_list',
    method: 'GET',
    url: '/v1/brands',
    about: 'List the brands of your organization, newest first, with paging.',
    omit: ['all_organizations'],
    list: true,
  },
  {
    name: 'brands_get',
    method: 'GET',
    url: '/v1/brands/:brandId',
    about: 'Read one brand. Its `version` is what brands_update needs as ifMatch.',
  },
  {
    name: 'brands_create',
    method: 'POST',
    url: '/v1/brands',
    about: 'Create a brand (name, industry, description, tone, voice…). Every asset and generation belongs to a brand.',
  },
  {
    name: 'brands_update',
    method: 'PUT',
    url: '/v1/brands/:brandId',
    about:
      'Replace a brand’s fields. Send ifMatch with the ETag from brands_get (`"<version>"`) so a concurrent edit is refused (PRECONDITION_FAILED) instead of overwritten.',
    headers: {
      ifMatch: {
        header: 'if-match',
        schema: { type: 'string', description: 'The brand’s ETag from brands_get, e.g. "3" (quotes included)' },
      },
    },
  },
  // Assets
  {
    name: 'assets_list',
    method: 'GET',
    url: '/v1/brands/:brandId/assets',
    about: 'List a brand’s assets, grouped by category, with signed links.',
    list: true,
  },
  {
    name: 'assets_initiate_upload',
    toolset: 'uploads',
    method: 'POST',
    url: '/v1/assets/initiate-upload',
    about:
      'Start uploading files you can PUT yourself: returns per file an `uploadUrl` (signed, short-lived; PUT the bytes there with `uploadHeaders`, no API key), an `uploadId` for assets_confirm_upload and the `assetId`. Agents without HTTP access use assets_upload_from_url or assets_upload_base64 instead.',
  },
  {
    name: 'assets_confirm_upload',
    toolset: 'uploads',
    method: 'POST',
    url: '/v1/assets/confirm-upload',
    about:
      'Confirm an upload once its bytes were PUT: checks them and starts processing. Then wait_for_task(kind "asset").',
    poll: 'asset',
  },
  {
    name: 'assets_cancel_upload',
    toolset: 'uploads',
    method: 'POST',
    url: '/v1/assets/cancel-upload/:uploadId',
    about: 'Cancel an upload that was initiated but not confirmed.',
  },
  // URL extraction
  {
    name: 'extraction_submit',
    method: 'POST',
    url: '/v1/assets/extract-from-url',
    about:
      'Harvest candidate images (products, logos, lifestyle shots) from a public web page. Returns a pending extraction; wait_for_task(kind "extraction"), then extraction_commit the candidates you keep.',
    poll: 'extraction',
  },
  {
    name: 'extraction_commit',
    method: 'POST',
    url: '/v1/assets/extract-from-url/:extractionId/commit',
    about:
      'Turn chosen candidates of a completed extraction into assets of the brand (they are then processed like uploads).',
  },
  {
    name: 'extraction_delete',
    method: 'DELETE',
    url: '/v1/assets/extract-from-url/:extractionId',
    about: 'Delete an extraction and its staged candidates; committed assets stay.',
  },
  // Brand DNA
  {
    name: 'dna_versions_list',
    toolset: 'dna',
    method: 'GET',
    url: '/v1/brands/:brandId/brand-dna/versions',
    about: 'List a brand’s Brand DNA versions.',
    list: true,
  },
  {
    name: 'dna_version_create',
    method: 'POST',
    url: '/v1/brands/:brandId/brand-dna/versions',
    about:
      'Distill a Brand DNA version (palette, typography, imagery, voice) from the brand’s assets and/or web pages. wait_for_task(kind "brand_dna_version", brandId), then dna_version_activate it: generations use the active one.',
    poll: 'brand_dna_version',
  },
  {
    name: 'dna_version_update',
    toolset: 'dna',
    method: 'PUT',
    url: '/v1/brands/:brandId/brand-dna/versions/:versionId',
    about: 'Edit a ready Brand DNA version’s fields.',
  },
  {
    name: 'dna_version_delete',
    toolset: 'dna',
    method: 'DELETE',
    url: '/v1/brands/:brandId/brand-dna/versions/:versionId',
    about: 'Delete a Brand DNA version that is not the active one.',
  },
  {
    name: 'dna_version_activate',
    method: 'POST',
    url: '/v1/brands/:brandId/brand-dna/versions/:versionId/activate',
    about: 'Make a ready version the brand’s active Brand DNA (generations with useBrandDna read it).',
  },
  {
    name: 'dna_version_cancel',
    toolset: 'dna',
    method: 'POST',
    url: '/v1/brands/:brandId/brand-dna/versions/:versionId/cancel',
    about: 'Cancel a pending or extracting version (it is deleted).',
  },
  {
    name: 'dna_version_rerun',
    toolset: 'dna',
    method: 'POST',
    url: '/v1/brands/:brandId/brand-dna/versions/:versionId/rerun',
    about: 'Run a ready or failed version again, optionally with new sources.',
    poll: 'brand_dna_version',
  },
  {
    name: 'dna_active_get',
    method: 'GET',
    url: '/v1/brands/:brandId/brand-dna/active',
    about: 'Read the brand’s active Brand DNA version.',
  },
  // Scene forges
  {
    name: 'scenes_create',
    method: 'POST',
    url: '/v1/brands/:brandId/scene-forges',
    describe: {
      promptIsEnhanced: 'true only when blendingPrompt is an unchanged optimizedPrompt (scene_prompt_enhance)',
    },
    about:
      'Generate four scored scenes of the real product (productAssetIds), placed, lit and shadowed on an environment (environmentAssetId) or a set made from the prompt. Then wait_for_task(kind "scene_forge"); variations get `asset.url`.',
    poll: 'scene_forge',
    defaults: { promptIsEnhanced: false },
  },
  {
    name: 'scenes_list',
    method: 'GET',
    url: '/v1/brands/:brandId/scene-forges',
    about: 'List a brand’s scene forges with their variations.',
    ...SORTED_LIST,
  },
  {
    name: 'scenes_refine',
    method: 'POST',
    url: '/v1/scene-forges/:id/refinements',
    about:
      'Refine a completed variation toward a score (attention_potential, conversion or brand_awareness), steered by its critique: new variations in the same forge. wait_for_task(kind "scene_forge") on the forge id.',
    poll: 'scene_forge',
    rename: { id: 'sceneForgeId' },
  },
  {
    name: 'scenes_react',
    method: 'PATCH',
    url: '/v1/scene-forges/:id/variations/:generatedImageId',
    about: 'Like or dislike a variation (liking clears a dislike and the other way round).',
    rename: { id: 'sceneForgeId' },
  },
  // Environments and enhancements
  {
    name: 'environments_generate',
    method: 'POST',
    url: '/v1/brands/:brandId/environment-generations',
    about:
      'Make a backdrop image (no product) from a prompt and the brand’s palette, stored as an asset of type environment for scenes_create’s environmentAssetId. wait_for_task(kind "environment_generation").',
    poll: 'environment_generation',
  },
  {
    name: 'scene_prompt_enhance',
    method: 'POST',
    url: '/v1/brands/:brandId/scene-forge-prompt-enhancements',
    describe: { aspectRatio: 'The forge’s aspect ratio: the brief is composed for it' },
    about:
      'Rewrite a scene prompt into a product-photo brief from the products and the brand. wait_for_task(kind "scene_prompt_enhancement", brandId); send `optimizedPrompt` to scenes_create with promptIsEnhanced true.',
    poll: 'scene_prompt_enhancement',
  },
  // Videos
  {
    name: 'videos_generate',
    method: 'POST',
    url: '/v1/brands/:brandId/generate-video',
    describe: { promptIsEnhanced: 'true only when every prompt is an unchanged enhancedPrompt (video_prompt_enhance)' },
    about:
      'Make videos, one per prompt, from a start frame (a scene variation’s asset) or, with video-model-8, from references. Camera words (push-in, orbit, pan, dolly, crane, tilt, static) set the move. Then wait_for_task(kind "video_group", id = generatedVideosGroupId); variations get `asset.url` (MP4).',
    poll: 'video_group',
  },
  {
    name: 'videos_list',
    method: 'GET',
    url: '/v1/brands/:brandId/generated-videos-groups',
    about: 'List a brand’s video groups.',
    ...SORTED_LIST,
  },
  {
    name: 'video_prompt_enhance',
    method: 'POST',
    url: '/v1/brands/:brandId/image-to-video-prompt-enhancements',
    describe: {
      model: 'Video model (default video-model-7); what each is for: videos_generate’s model',
      referenceImageAssetIds: 'video-model-8 only, as in videos_generate',
      referenceVideoAssetIds: 'video-model-8 only, as in videos_generate',
    },
    about:
      'Write a video prompt (subject, one camera move, pacing for the duration, transitions, audio cues) for a start frame or references. wait_for_task(kind "video_prompt_enhancement", brandId); send `enhancedPrompt` to videos_generate with promptIsEnhanced true.',
    poll: 'video_prompt_enhancement',
  },
  // Usage
  {
    name: 'usage_get',
    method: 'GET',
    url: '/v1/organizations/current/feature-usage',
    about: 'Your plan’s pools (usage, cap, remaining) and the features it includes. Check before large generations.',
  },
  // Webhook endpoints (admins and owners)
  {
    name: 'webhooks_list',
    toolset: 'webhooks',
    method: 'GET',
    url: '/v1/webhook-endpoints',
    about: 'List your organization’s webhook endpoints (admins only).',
    list: true,
  },
  {
    name: 'webhooks_create',
    toolset: 'webhooks',
    method: 'POST',
    url: '/v1/webhook-endpoints',
    about: 'Register a URL for signed events when resources finish; the answer’s `secret` is shown only once.',
  },
  {
    name: 'webhooks_get',
    toolset: 'webhooks',
    method: 'GET',
    url: '/v1/webhook-endpoints/:endpointId',
    about: 'Read one webhook endpoint.',
  },
  {
    name: 'webhooks_update',
    toolset: 'webhooks',
    method: 'PATCH',
    url: '/v1/webhook-endpoints/:endpointId',
    about: 'Change a webhook endpoint; events null takes every event.',
  },
  {
    name: 'webhooks_delete',
    toolset: 'webhooks',
    method: 'DELETE',
    url: '/v1/webhook-endpoints/:endpointId',
    about: 'Delete a webhook endpoint and its log.',
  },
  {
    name: 'webhooks_rotate_secret',
    toolset: 'webhooks',
    method: 'POST',
    url: '/v1/webhook-endpoints/:endpointId/rotate-secret',
    about: 'New signing secret, shown once; the old one also signs for overlapSeconds.',
  },
  {
    name: 'webhooks_test',
    toolset: 'webhooks',
    method: 'POST',
    url: '/v1/webhook-endpoints/:endpointId/test',
    about: 'Send a webhook.test event now and say whether it was delivered.',
  },
  {
    name: 'webhooks_deliveries',
    toolset: 'webhooks',
    method: 'GET',
    url: '/v1/webhook-endpoints/:endpointId/deliveries',
    about: 'A webhook endpoint’s deliveries, newest first.',
    list: true,
  },
];

/**
 * The first sentence of a description, at most `max` characters: a longer one ends at its last
 * clause (`;`, `:`, `,`, ` (`) that fits, else at a word, with an ellipsis.
 */
export function shortText(text: string, max = 90): string {
  // A sentence ends at . ! or ? before a space or the end, but not in "e.g." or "i.e.".
  const first = /^.*?(?<!\b(?:e\.g|i\.e))[.!?](?=\s|$)/s.exec(text)?.[0] ?? text;
  if (first.length <= max) return first;
  const head = first.slice(0, max - 1);
  // The last clause boundary outside parentheses (a cut list in brackets reads as broken).
  let clause = -1;
  for (let i = 0, depth = 0; i < head.length - 1; i++) {
    const c = head[i];
    if (c === ' ' && head[i + 1] === '(' && depth === 0) clause = i;
    if (c === '(') depth++;
    else if (c === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0 && (c === ';' || c === ':' || c === ',') && head[i + 1] === ' ') clause = i;
  }
  if (clause >= max / 3) return head.slice(0, clause);
  const word = head.lastIndexOf(' ');
  return `${(word >= max / 3 ? head.slice(0, word) : head).trimEnd()}…`;
}

/** Descriptions that only restate the schema's string rules. */
const BOILERPLATE = /^Must (not )?contain (a non-whitespace character|NUL characters)/;

const KEPT = [
  'type',
  'enum',
  'const',
  'format',
  'minimum',
  'maximum',
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
];

/**
 * A member's schema as an agent needs it: types, enums, bounds and one sentence of description
 * (enum meanings in full) at the top; nested objects deeper than `depth` levels are only
 * `{type: "object"}` (the REST route validates them in full).
 */
export function compactSchema(schema: JsonSchema, depth = 0): JsonSchema {
  const src = schema as Record<string, unknown>;
  // `X or null` is one schema whose type also allows null.
  const alts = (src.anyOf ?? src.oneOf) as Record<string, unknown>[] | undefined;
  if (Array.isArray(alts) && alts.length === 2 && alts.some((a) => a.type === 'null')) {
    const other = alts.find((a) => a.type !== 'null') as Record<string, unknown>;
    if (typeof other.type === 'string') {
      const merged = compactSchema({ ...other, description: src.description } as JsonSchema, depth);
      return { ...merged, type: [other.type, 'null'] } as unknown as JsonSchema;
    }
  }
  const out: Record<string, unknown> = {};
  for (const k of KEPT) if (src[k] !== undefined) out[k] = src[k];
  // Ids are named for what they are (brandId, sceneForgeId); the route checks their form.
  if (out.format === 'uuid') delete out.format;
  if (src.default !== undefined && typeof src.default !== 'object') {
    out.default = src.default;
    // With a default, the bounds of a page number or size are noise to an agent.
    delete out.minimum;
    delete out.maximum;
  }
  // "Default false" says what a boolean left out means anyway.
  const said = typeof src.description === 'string' && !/^Default false\.?$/.test(src.description);
  if (said && depth <= 1 && !BOILERPLATE.test(src.description as string)) {
    out.description = src.enum ? src.description : shortText(src.description as string);
  }
  if (out.minLength === 1) delete out.minLength;
  if (Array.isArray(alts)) out[src.anyOf ? 'anyOf' : 'oneOf'] = alts.map((a) => compactSchema(a as JsonSchema, depth));
  // Items of a list are as deep as the list (an array of file objects shows their members).
  if (src.items && typeof src.items === 'object') out.items = compactSchema(src.items as JsonSchema, depth);
  if (src.properties && typeof src.properties === 'object') {
    if (depth >= 2) {
      return { type: 'object', ...(typeof out.description === 'string' ? { description: out.description } : {}) };
    }
    out.properties = Object.fromEntries(
      Object.entries(src.properties as Record<string, JsonSchema>).map(([k, v]) => [k, compactSchema(v, depth + 1)]),
    );
    if (Array.isArray(src.required) && src.required.length) out.required = src.required;
  }
  return out as JsonSchema;
}

/**
 * The `view` member of the list tools and get_task / wait_for_task (views.ts): compact by
 * default, `full` for the REST answer as it is (the server's instructions say so once). Other
 * tools answer compact views too and take `view` as well; it is listed where it matters.
 */
export const VIEW_MEMBER: JsonSchema = { type: 'string', enum: ['compact', 'full'] };

/**
 * A route's params, query and body members as one flat object schema, less `omit`, with the
 * tool's names (`rename`) and descriptions (`describe`); members with a default (the route's or the tool's) are optional
 * (throws on a name used twice).
 */
export function inputSchemaOf(
  route: RouteSchemas,
  extra: Record<string, JsonSchema> = {},
  tool: Pick<RouteTool, 'omit' | 'rename' | 'defaults' | 'describe' | 'list'> = {},
): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const omit = tool.omit ?? [];
  const nameOf = (name: string) => tool.rename?.[name] ?? name;
  for (const part of [route.params, route.querystring, route.body, { type: 'object', properties: extra }]) {
    if (!part?.properties) continue;
    for (const [name, schema] of Object.entries(part.properties)) {
      if (omit.includes(name)) continue;
      const own = nameOf(name);
      if (own in properties) throw new Error(`${route.method} ${route.url}: member "${own}" appears twice`);
      const description = tool.describe?.[name];
      const { description: _said, ...rest } = schema as Record<string, unknown>;
      properties[own] = {
        // An empty description in `describe` drops the route's (the schema says it all).
        ...(description === '' ? rest : schema),
        ...(description ? { description } : {}),
        // A list tool's page is LIST_LIMIT long unless the agent asks for more (requestOf).
        ...(tool.list && name === 'limit' ? { default: LIST_LIMIT } : {}),
      } as JsonSchema;
    }
    for (const name of part.required ?? []) {
      const schema = part.properties[name] as Record<string, unknown> | undefined;
      if (omit.includes(name) || schema?.default !== undefined || tool.defaults?.[name] !== undefined) continue;
      required.push(nameOf(name));
    }
  }
  return {
    type: 'object',
    properties,
    ...(required.length ? { required } : {}),
    additionalProperties: false,
  };
}

export interface RouteRequest {
  method: string;
  /** Path with params filled in (URL-encoded) and the query string. */
  url: string;
  body?: Record<string, unknown>;
  headers: Record<string, string>;
}

/** Arguments a tool does not take (the route would not either). */
export class UnknownArguments extends Error {
  readonly names: string[];
  readonly accepted: string[];

  constructor(names: string[], accepted: string[]) {
    super(
      `Unknown argument${names.length > 1 ? 's' : ''} ${names.join(', ')}; this tool takes ${accepted.join(', ') || 'no arguments'}`,
    );
    this.names = names;
    this.accepted = accepted;
    this.name = 'UnknownArguments';
  }
}

/** A path parameter that cannot be one (empty, a dot segment, not text). */
export class BadPathArgument extends Error {
  readonly field: string;

  constructor(field: string) {
    super(`${field} must be an id (a non-empty string that is not "." or "..")`);
    this.field = field;
    this.name = 'BadPathArgument';
  }
}

/**
 * A value as one path segment: URL-encoded, and refused when it is empty or a dot segment (the
 * in-process request would resolve `..` to the parent route before the route's id check).
 */
export function pathSegment(field: string, value: unknown): string {
  if (typeof value !== 'string' && typeof value !== 'number') throw new BadPathArgument(field);
  const text = String(value);
  if (text === '' || text === '.' || text === '..') throw new BadPathArgument(field);
  return encodeURIComponent(text);
}

/** Splits a tool call's arguments back into the route's params, query, body and headers. */
export function requestOf(tool: RouteTool, route: RouteSchemas, given: Record<string, unknown>): RouteRequest {
  const names = (s?: JsonSchema) =>
    new Set(Object.keys(s?.properties ?? {}).filter((name) => !tool.omit?.includes(name)));
  const params = names(route.params);
  const query = names(route.querystring);
  const bodyNames = names(route.body);
  const own = (name: string) => tool.rename?.[name] ?? name;
  // The tool's names back to the route's, its defaults filled in, `view` left to the server.
  const routeName = new Map(Object.entries(tool.rename ?? {}).map(([r, o]) => [o, r]));
  const args: Record<string, unknown> = { ...tool.defaults };
  const unknown: string[] = [];
  for (const [name, value] of Object.entries(given)) {
    if (name === 'view') continue;
    if (tool.rename?.[name] !== undefined)
      unknown.push(name); // a route name the tool renamed
    else args[routeName.get(name) ?? name] = value;
  }
  if (tool.list && query.has('limit') && args.limit === undefined) args.limit = LIST_LIMIT;
  const search = new URLSearchParams();
  const body: Record<string, unknown> = {};
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined || params.has(name)) continue;
    const header = tool.headers?.[name];
    if (header) headers[header.header] = String(value);
    else if (query.has(name)) search.set(name, String(value));
    else if (bodyNames.has(name)) body[name] = value;
    else unknown.push(name);
  }
  if (unknown.length) {
    throw new UnknownArguments(unknown, [
      ...[...params, ...query, ...bodyNames].map(own),
      ...Object.keys(tool.headers ?? {}),
      'view',
    ]);
  }
  const path = tool.url.replace(/:([A-Za-z0-9_]+)/g, (_, name: string) => pathSegment(own(name), args[name]));
  const qs = search.toString();
  return {
    method: tool.method,
    url: qs ? `${path}?${qs}` : path,
    ...(route.body ? { body } : {}),
    headers,
  };
}
