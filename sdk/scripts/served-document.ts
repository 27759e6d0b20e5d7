import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { createDeps } from '../../src/deps.ts';
import type { OpenApiDocument } from './codegen.ts';

/**
 * The OpenAPI document exactly as the server serves it at GET /v1/openapi.json: the app is built
 * in-process on a throwaway data directory (default settings, no environment read) and asked.
 */
export async function servedDocument(): Promise<OpenApiDocument> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'atelier-sdk-types-'));
  try {
    const config = loadConfig({ LOG_LEVEL: 'silent', ATELIER_DATA_DIR: dataDir });
    const deps = await createDeps(config);
    try {
      const app = await buildApp(deps);
      try {
        await app.ready();
        const res = await app.inject({ method: 'GET', url: '/v1/openapi.json' });
        if (res.statusCode !== 200) throw new Error(`GET /v1/openapi.json answered ${res.statusCode}: ${res.body}`);
        return res.json() as OpenApiDocument;
      } finally {
        await app.close();
      }
    } finally {
      await deps.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The document served by a running Atelier at `baseUrl` (no key needed). */
export async function fetchDocument(baseUrl: string): Promise<OpenApiDocument> {
  const res = await fetch(new URL('/v1/openapi.json', baseUrl));
  if (!res.ok) throw new Error(`GET ${baseUrl}/v1/openapi.json answered ${res.status}`);
  return (await res.json()) as OpenApiDocument;
}
