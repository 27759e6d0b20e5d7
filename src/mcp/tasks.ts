import type { ResourceKind } from '../events/changes.ts';
import { isTerminalStatus } from '../events/publish.ts';
import type { JsonSchema } from './route-catalog.ts';
import { pathSegment, VIEW_MEMBER } from './tools.ts';

/**
 * The pollable resources (spec, Events: extraction, Brand DNA version, scene forge, environment
 * generation, both prompt enhancements, video group; plus assets while they are processed): how
 * to read one. Done means a terminal status, the same set long-poll and webhooks use
 * (src/events/publish.ts). Pure.
 */
export interface TaskKind {
  /** The REST path that reads it. */
  path(id: string, brandId: string | undefined): string;
  /** Whether it needs the brand id (its path is under the brand). */
  needsBrand: boolean;
}

/** The ids as path segments; BadPathArgument for one that is not an id (tools.ts). */
const enc = (id: string) => pathSegment('id', id);
const encBrand = (brandId: string | undefined) => pathSegment('brandId', brandId);

/** One entry per resource kind that publishes changes (a kind added there must be added here). */
export const TASK_KINDS: Readonly<Record<ResourceKind, TaskKind>> = {
  asset: { path: (id) => `/v1/assets/${enc(id)}`, needsBrand: false },
  extraction: { path: (id) => `/v1/assets/extract-from-url/${enc(id)}`, needsBrand: false },
  brand_dna_version: {
    path: (id, b) => `/v1/brands/${encBrand(b)}/brand-dna/versions/${enc(id)}`,
    needsBrand: true,
  },
  scene_forge: { path: (id) => `/v1/scene-forges/${enc(id)}`, needsBrand: false },
  environment_generation: { path: (id) => `/v1/environment-generations/${enc(id)}`, needsBrand: false },
  scene_prompt_enhancement: {
    path: (id, b) => `/v1/brands/${encBrand(b)}/scene-forge-prompt-enhancements/${enc(id)}`,
    needsBrand: true,
  },
  video_group: { path: (id) => `/v1/generated-videos-groups/${enc(id)}`, needsBrand: false },
  video_prompt_enhancement: {
    path: (id, b) => `/v1/brands/${encBrand(b)}/image-to-video-prompt-enhancements/${enc(id)}`,
    needsBrand: true,
  },
};

export const isTaskKind = (kind: string): kind is ResourceKind => Object.hasOwn(TASK_KINDS, kind);

/** The status a polled body reports (Brand DNA versions and some reads wrap it in `data`). */
export function statusOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const b = body as Record<string, unknown>;
  if (typeof b.status === 'string' && b.status !== 'success') return b.status;
  const data = b.data;
  if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
    const s = (data as Record<string, unknown>).status;
    if (typeof s === 'string') return s;
  }
  return undefined;
}

/**
 * How far along a resource is, 0..1, for progress notifications: the share of its variations (or
 * of a scene forge's refinements') that are terminal when it has any; else 0 until done.
 */
export function progressOf(body: unknown): number {
  if (isTerminalStatus(statusOf(body))) return 1;
  const b = (body ?? {}) as Record<string, unknown>;
  const variations = Array.isArray(b.variations) ? (b.variations as { status?: string }[]) : [];
  if (variations.length === 0) return 0;
  const done = variations.filter((v) => v.status === 'completed' || v.status === 'failed').length;
  return Math.min(0.99, done / variations.length);
}

const KIND_NAMES = Object.keys(TASK_KINDS);

export const MAX_WAIT_SECONDS = 300;
export const DEFAULT_WAIT_SECONDS = 120;

/** What names the resource to poll, described once (on wait_for_task, the tool agents use most). */
const TASK_MEMBERS: Record<string, JsonSchema> = {
  kind: {
    type: 'string',
    enum: KIND_NAMES,
    description: 'What the id names (the tool that created it says which kind)',
  },
  id: { type: 'string', format: 'uuid', description: 'The resource id (for video_group: generatedVideosGroupId)' },
  brandId: {
    type: 'string',
    format: 'uuid',
    description: 'Required for brand_dna_version, scene_prompt_enhancement and video_prompt_enhancement',
  },
  view: VIEW_MEMBER,
};

const withoutDescription = ({ description: _said, ...schema }: JsonSchema & { description?: unknown }) => schema;

export const WaitInput: JsonSchema = {
  type: 'object',
  properties: {
    ...TASK_MEMBERS,
    timeoutSeconds: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_WAIT_SECONDS,
      description: `How long to wait at most (default ${DEFAULT_WAIT_SECONDS}); call again if it is still running`,
    },
  },
  required: ['kind', 'id'],
  additionalProperties: false,
};

/** get_task's members: wait_for_task's without their descriptions (said once in the tool list). */
export const TaskInput: JsonSchema = {
  type: 'object',
  properties: Object.fromEntries(
    Object.entries(TASK_MEMBERS).map(([name, schema]) => [name, withoutDescription(schema)]),
  ),
  required: ['kind', 'id'],
  additionalProperties: false,
};
