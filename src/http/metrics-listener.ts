import Fastify from 'fastify';
import type { AppDeps } from '../app-deps.ts';
import { createLogger } from '../adapters/log/logger.ts';
import type { Config, MetricsSettings } from '../config.ts';
import { installErrorHandling } from './error-handler.ts';
import { opsRoutes } from './ops.routes.ts';

export interface MetricsListener {
  /** `http://host:port` it listens on. */
  url: string;
  close(): Promise<void>;
}

/**
 * The listener of ATELIER_METRICS_PORT, in `serve` and `worker`: `/metrics` (this process's
 * registry: jobs, and HTTP on an API node), `/healthz` and `/readyz`, without a key, and nothing
 * else. A worker has no other port, so this is how it is probed and scraped; on an API node it
 * keeps the metrics off the public port. Loopback unless ATELIER_METRICS_HOST says otherwise.
 */
export async function startMetricsListener(
  deps: Pick<AppDeps, 'readiness' | 'metrics'>,
  settings: Pick<MetricsSettings, 'host'> & { port: number },
): Promise<MetricsListener> {
  const app = Fastify({ logger: false });
  installErrorHandling(app);
  await app.register(opsRoutes(deps, 'open'));
  await app.listen({ port: settings.port, host: settings.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
  return { url: `http://${host}:${port}`, close: () => app.close() };
}

/** The listener when ATELIER_METRICS_PORT is set (one info line says where), else undefined. */
export async function openMetricsListener(
  config: Pick<Config, 'metrics' | 'logLevel' | 'logFormat'>,
  deps: Pick<AppDeps, 'readiness' | 'metrics'>,
): Promise<MetricsListener | undefined> {
  const { port, host } = config.metrics;
  if (port === undefined) return undefined;
  const listener = await startMetricsListener(deps, { host, port });
  createLogger(config).info(
    { url: listener.url },
    'metrics, health and readiness listening (/metrics, /healthz, /readyz)',
  );
  return listener;
}
