import type { RouteOptions } from 'fastify';

/** What a tool needs of a REST route: its schemas, as the route validates them. */
export interface RouteSchemas {
  method: string;
  /** Fastify form: `/v1/brands/:brandId`. */
  url: string;
  summary?: string;
  description?: string;
  /** The role permission the route needs (config.permission; `read` for GET). */
  permission?: string;
  params?: JsonSchema;
  querystring?: JsonSchema;
  body?: JsonSchema;
}

export interface JsonSchema {
  type?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  description?: string;
  [k: string]: unknown;
}

/**
 * The routes' schemas, collected by an `onRoute` hook as the app registers them, so the agent
 * tools are made from the very schemas the REST routes validate with (they cannot drift).
 */
export function createRouteCatalog() {
  const routes = new Map<string, RouteSchemas>();
  const key = (method: string, url: string) => `${method.toUpperCase()} ${url}`;
  return {
    onRoute(opts: RouteOptions): void {
      const methods = Array.isArray(opts.method) ? opts.method : [opts.method];
      const schema = (opts.schema ?? {}) as Record<string, unknown>;
      const permission = (opts.config as { permission?: string } | undefined)?.permission;
      for (const method of methods) {
        const upper = method.toUpperCase();
        routes.set(key(method, opts.url), {
          method: upper,
          url: opts.url,
          ...(permission ? { permission } : upper === 'GET' || upper === 'HEAD' ? { permission: 'read' } : {}),
          ...(typeof schema.summary === 'string' ? { summary: schema.summary } : {}),
          ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
          ...(schema.params ? { params: schema.params as JsonSchema } : {}),
          ...(schema.querystring ? { querystring: schema.querystring as JsonSchema } : {}),
          ...(schema.body ? { body: schema.body as JsonSchema } : {}),
        });
      }
    },
    get(method: string, url: string): RouteSchemas | undefined {
      return routes.get(key(method, url));
    },
    all(): RouteSchemas[] {
      return [...routes.values()];
    },
  };
}

export type RouteCatalog = ReturnType<typeof createRouteCatalog>;
