import Fastify from 'fastify';
import { createLogger, type LogSettings } from '../adapters/log/logger.ts';
import { installErrorHandling } from './error-handler.ts';
import { type OpsRoutesDeps, opsRoutes } from './ops.routes.ts';

/** Where Prometheus metrics are served (ATELIER_METRICS_*), parsed by src/config.ts. */
export interface MetricsSettings {
  /**
   * ATELIER_METRICS_PORT: a listener of its own in `serve` and `worker` with /metrics, /healthz
   * and /readyz and nothing else; unset: none.
   */
  port: number | undefined;
  /** ATELIER_METRICS_HOST: its interface, loopback by default (a scraper beside the process). */
  host: string;
  /** ATELIER_METRICS_TOKEN: /metrics on the API port answers this Bearer token; unset: 404 there. */
  token: string | undefined;
}

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
  deps: OpsRoutesDeps,
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
  config: LogSettings & { metrics: MetricsSettings },
  deps: OpsRoutesDeps,
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
