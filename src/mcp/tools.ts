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
}

/** The page size list tools ask for unless the agent names one. */
export const LIST_LIMIT = 5;

const brand = 'brandId is a brand of your organization (brands_list).';

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
    about: `List a brand’s assets, grouped by category, with signed links. ${brand}`,
    list: true,
  },
  {
    name: 'assets_initiate_upload',
    method: 'POST',
    url: '/v1/assets/initiate-upload',
    about:
      'Start uploading files you can PUT yourself: returns per file an `uploadUrl` (signed, short-lived; PUT the bytes there with `uploadHeaders`, no API key), an `uploadId` for assets_confirm_upload and the `assetId`. Agents without HTTP access use assets_upload_from_url or assets_upload_base64 instead.',
  },
  {
    name: 'assets_confirm_upload',
    method: 'POST',
    url: '/v1/assets/confirm-upload',
    about:
      'Confirm an upload once its bytes were PUT: checks them and starts processing. Then wait_for_task(kind "asset").',
    poll: 'asset',
  },
  {
    name: 'assets_cancel_upload',
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
    method: 'GET',
    url: '/v1/brands/:brandId/brand-dna/versions',
    about: `List a brand’s Brand DNA versions. ${brand}`,
    list: true,
  },
  {
    name: 'dna_version_create',
    method: 'POST',
    url: '/v1/brands/:brandId/brand-dna/versions',
    about:
      'Distill a Brand DNA version (palette, typography, imagery, voice) from assets and/or web pages of the brand. Pending at first: wait_for_task(kind "brand_dna_version", brandId), then dna_version_activate it so generations use it.',
    poll: 'brand_dna_version',
  },
  {
    name: 'dna_version_update',
    method: 'PUT',
    url: '/v1/brands/:brandId/brand-dna/versions/:versionId',
    about: 'Edit a ready Brand DNA version’s fields.',
  },
  {
    name: 'dna_version_delete',
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
    method: 'POST',
    url: '/v1/brands/:brandId/brand-dna/versions/:versionId/cancel',
    about: 'Cancel a pending or extracting version (it is deleted).',
  },
  {
    name: 'dna_version_rerun',
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
    about:
      'Generate product scenes: four variations of the real product (productAssetIds, complete image assets) placed, lit and shadowed on an environment (environmentAssetId) or on a backdrop made from the prompt, each scored. Returns the pending forge: wait_for_task(kind "scene_forge"); each completed variation has `asset.url`.',
    poll: 'scene_forge',
    defaults: { promptIsEnhanced: false },
  },
  {
    name: 'scenes_list',
    method: 'GET',
    url: '/v1/brands/:brandId/scene-forges',
    about: `List a brand’s scene forges with their variations. ${brand}`,
    list: true,
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
    about:
      'Rewrite a scene prompt into a concrete product-photo brief from the products and the brand. wait_for_task(kind "scene_prompt_enhancement", brandId); send `optimizedPrompt` to scenes_create with promptIsEnhanced true (keep `originalPrompt` to undo).',
    poll: 'scene_prompt_enhancement',
  },
  // Videos
  {
    name: 'videos_generate',
    method: 'POST',
    url: '/v1/brands/:brandId/generate-video',
    about:
      'Make videos from a start frame (e.g. a scene variation’s asset) — one per prompt — or, with model video-model-8, from reference images/videos. Camera words in the prompt (push-in, orbit, pan, dolly, crane, tilt, static) set the move. Returns {data:[group]}: wait_for_task(kind "video_group", id = generatedVideosGroupId); each completed variation has `asset.url` (MP4) and `previewUrl`.',
    poll: 'video_group',
  },
  {
    name: 'videos_list',
    method: 'GET',
    url: '/v1/brands/:brandId/generated-videos-groups',
    about: `List a brand’s video groups. ${brand}`,
    list: true,
  },
  {
    name: 'video_prompt_enhance',
    method: 'POST',
    url: '/v1/brands/:brandId/image-to-video-prompt-enhancements',
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
    method: 'GET',
    url: '/v1/webhook-endpoints',
    about: 'List your organization’s webhook endpoints (admins only).',
    list: true,
  },
  {
    name: 'webhooks_create',
    method: 'POST',
    url: '/v1/webhook-endpoints',
    about: 'Register a URL for signed events when resources finish; the answer’s `secret` is shown only once.',
  },
  {
    name: 'webhooks_get',
    method: 'GET',
    url: '/v1/webhook-endpoints/:endpointId',
    about: 'Read one webhook endpoint.',
  },
  {
    name: 'webhooks_update',
    method: 'PATCH',
    url: '/v1/webhook-endpoints/:endpointId',
    about: 'Change a webhook endpoint; events null takes every event.',
  },
  {
    name: 'webhooks_delete',
    method: 'DELETE',
    url: '/v1/webhook-endpoints/:endpointId',
    about: 'Delete a webhook endpoint and its log.',
  },
  {
    name: 'webhooks_rotate_secret',
    method: 'POST',
    url: '/v1/webhook-endpoints/:endpointId/rotate-secret',
    about: 'New signing secret, shown once; the old one also signs for overlapSeconds.',
  },
  {
    name: 'webhooks_test',
    method: 'POST',
    url: '/v1/webhook-endpoints/:endpointId/test',
    about: 'Send a webhook.test event now and say whether it was delivered.',
  },
  {
    name: 'webhooks_deliveries',
    method: 'GET',
    url: '/v1/webhook-endpoints/:endpointId/deliveries',
    about: 'A webhook endpoint’s deliveries, newest first.',
    list: true,
  },
];

/** The first sentence of a description, at most `max` characters. */
export function shortText(text: string, max = 90): string {
  const first = /^.*?[.!?](?=\s|$)/s.exec(text)?.[0] ?? text;
  return first.length <= max ? first : `${first.slice(0, max - 1).trimEnd()}…`;
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
  if (src.default !== undefined && typeof src.default !== 'object') {
    out.default = src.default;
    // With a default, the bounds of a page number or size are noise to an agent.
    delete out.minimum;
    delete out.maximum;
  }
  if (typeof src.description === 'string' && depth <= 1 && !BOILERPLATE.test(src.description)) {
    out.description = src.enum ? src.description : shortText(src.description);
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
 * tool's names (`rename`); members with a default (the route's or the tool's) are optional
 * (throws on a name used twice).
 */
export function inputSchemaOf(
  route: RouteSchemas,
  extra: Record<string, JsonSchema> = {},
  tool: Pick<RouteTool, 'omit' | 'rename' | 'defaults'> = {},
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
      properties[own] = schema;
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
  constructor(
    readonly names: string[],
    readonly accepted: string[],
  ) {
    super(
      `Unknown argument${names.length > 1 ? 's' : ''} ${names.join(', ')}; this tool takes ${accepted.join(', ') || 'no arguments'}`,
    );
    this.name = 'UnknownArguments';
  }
}

/** A path parameter that cannot be one (empty, a dot segment, not text). */
export class BadPathArgument extends Error {
  constructor(readonly field: string) {
    super(`${field} must be an id (a non-empty string that is not "." or "..")`);
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
