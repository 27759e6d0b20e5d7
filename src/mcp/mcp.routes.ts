import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { AppDeps } from '../app-deps.ts';
import { chargeAnswer } from '../modules/access/access.auth.ts';
import { createMcpServer } from './mcp.server.ts';
import { invalidParams } from './messages.ts';
import { parseToolsets, TOOLSETS } from './tools.ts';
import type { RouteCatalog } from './route-catalog.ts';

/** The paths of the agent-tool endpoint: `/v1/mcp` (with the API's prefix) and `/mcp` (the usual name). */
export const MCP_PATHS = ['/v1/mcp', '/mcp'] as const;
export const MCP_SERVER_VERSION = '1.0.0';

/**
 * The Model Context Protocol endpoint over Streamable HTTP, stateless: each POST gets its own
 * server and transport (no session to keep, so any API node of a scaled deployment answers any
 * call, and nothing lives past the request). GET (a server-initiated stream) and DELETE (ending a
 * session) are 405: a stateless server has neither. Authentication is the REST one — a Bearer API
 * key, refused with 401 and a `WWW-Authenticate` challenge naming the protected-resource metadata
 * (RFC 9728, as the MCP authorization spec asks of HTTP transports).
 *
 * One JSON-RPC message per request: batches (an array body) are refused with -32600, as the MCP
 * revisions since 2025-06-18 allow, so the per-key rate limit counts every message. The bytes the
 * answer writes are charged to the key's answer budget (access.auth.ts) like any route's.
 */
export function mcpRoutes(
  deps: Pick<AppDeps, 'config' | 'fetcher' | 'byteLimiter'> & {
    app: FastifyInstance;
    catalog: RouteCatalog;
    pollMs?: number;
  },
): FastifyPluginAsync {
  const metadataUrl = `${deps.config.publicUrl}/.well-known/oauth-protected-resource`;
  return async (app) => {
    app.addHook('onSend', async (request, reply) => {
      if (reply.statusCode === 401 && (MCP_PATHS as readonly string[]).includes(request.routeOptions.url ?? '')) {
        reply.header('www-authenticate', `Bearer realm="atelier", resource_metadata="${metadataUrl}"`);
      }
    });
    app.get('/.well-known/oauth-protected-resource', { config: { auth: false }, schema: { hide: true } }, async () => ({
      resource: `${deps.config.publicUrl}/v1/mcp`,
      bearer_methods_supported: ['header'],
      resource_name: 'Atelier',
      resource_documentation: `${deps.config.publicUrl}/docs`,
    }));
    const toolset = `(all|${TOOLSETS.join('|')})`;
    const querystring = {
      type: 'object',
      properties: {
        toolsets: {
          type: 'string',
          maxLength: 200,
          pattern: `^${toolset}(,${toolset})*$`,
          description: `The tool groups listed, comma-separated: ${TOOLSETS.join(', ')} or all (default core)`,
        },
      },
    } as const;
    for (const path of MCP_PATHS) {
      // JSON-RPC has its own ids; Idempotency-Key does not apply.
      const config = { permission: 'read', idempotency: false } as const;
      app.post(path, { config, schema: { hide: true, querystring } }, async (request, reply) => {
        if (Array.isArray(request.body)) {
          return reply.code(400).send({
            jsonrpc: '2.0',
            error: {
              code: -32600,
              message: 'Invalid Request: JSON-RPC batches are not supported; send one message per request',
            },
            id: null,
          });
        }
        const problem = invalidParams(request.body);
        if (problem) {
          return reply.send({ jsonrpc: '2.0', id: problem.id, error: { code: -32602, message: problem.message } });
        }
        const server = createMcpServer({
          app: deps.app,
          catalog: deps.catalog,
          authorization: request.headers.authorization ?? '',
          role: request.principal?.role ?? 'viewer',
          toolsets: parseToolsets((request.query as { toolsets?: string }).toolsets),
          fetcher: deps.fetcher,
          version: MCP_SERVER_VERSION,
          ...(deps.pollMs ? { pollMs: deps.pollMs } : {}),
        });
        const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
        // Headers set by the hooks (x-request-id, CORS) go on the raw response the transport writes.
        for (const [name, value] of Object.entries(reply.getHeaders())) {
          if (value !== undefined) reply.raw.setHeader(name, value as string | string[] | number);
        }
        reply.hijack();
        countWritten(reply.raw, (bytes) => chargeAnswer(deps, request, bytes));
        reply.raw.on('close', () => {
          void transport.close();
          void server.close();
        });
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, request.body);
      });
      for (const method of ['GET', 'DELETE'] as const) {
        app.route({
          method,
          url: path,
          config: { permission: 'read' },
          schema: { hide: true },
          handler: async (_request, reply) =>
            reply
              .code(405)
              .header('allow', 'POST')
              .send({
                jsonrpc: '2.0',
                error: {
                  code: -32000,
                  message: 'Method not allowed: this MCP server is stateless; POST JSON-RPC messages',
                },
                id: null,
              }),
        });
      }
    }
  };
}

/** Calls `done` with the body bytes written to a raw response once it finishes or closes. */
function countWritten(res: ServerResponse, done: (bytes: number) => void): void {
  let bytes = 0;
  const count = (chunk: unknown) => {
    if (typeof chunk === 'string') bytes += Buffer.byteLength(chunk);
    else if (chunk instanceof Uint8Array) bytes += chunk.length;
  };
  const write = res.write.bind(res);
  const end = res.end.bind(res);
  res.write = ((chunk: unknown, ...rest: never[]) => {
    count(chunk);
    return write(chunk as never, ...rest);
  }) as typeof res.write;
  res.end = ((chunk?: unknown, ...rest: never[]) => {
    if (typeof chunk !== 'function') count(chunk);
    return end(chunk as never, ...rest);
  }) as typeof res.end;
  res.once('close', () => done(bytes));
}
