import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEV_SIGNER_FILE, loadOrCreateDevCredentials } from '../../src/adapters/provenance/credentials.ts';
import { redisAvailable } from '../../src/jobs/jobs.test-harness.ts';
import { dbKinds, tmpDir } from '../helpers/app.ts';
import { eventually } from '../helpers/assets.ts';
import { readIndependently } from '../helpers/c2pa.ts';
import { apiClient } from '../helpers/processes.ts';
import { withScaledStack } from '../helpers/scaled.ts';

const redis = await redisAvailable();

/**
 * The scaled mode signs on the workers: `serve --no-workers` and `atelier worker` as real
 * processes (PostgreSQL, BullMQ, S3) given the operator's certificate chain and key as PEM files;
 * the environment the worker generates carries credentials signed with that certificate, valid
 * for c2pa-ts, and the API shows the operator as signer.
 */
describe('Content Credentials in the scaled mode', () => {
  it.runIf(redis && dbKinds().includes('postgres'))(
    "a worker signs with the operator's certificate from the settings",
    async () => {
      const certs = tmpDir('atelier-operator-cert-');
      await loadOrCreateDevCredentials(certs, { operatorName: 'Test Operator Shop' });
      const text = fs.readFileSync(path.join(certs, DEV_SIGNER_FILE), 'utf8');
      const at = text.indexOf('-----BEGIN CERTIFICATE');
      fs.writeFileSync(path.join(certs, 'chain.pem'), text.slice(at));
      fs.writeFileSync(path.join(certs, 'key.pem'), text.slice(0, at), { mode: 0o600 });
      await withScaledStack(
        'c2pa',
        async ({ base, apiKey }) => {
          const api = apiClient(base, apiKey);
          const brand = await api.post('/brands', {
            name: 'Scaled',
            industry: 'Outdoor',
            description: 'Tough gear for long trails.',
            mission: 'Get people outside.',
            values: ['durability'],
            tone: ['Friendly'],
            voice: ['plain'],
          });
          const run = await api.post(`/brands/${brand.id}/environment-generations`, {
            prompt: 'A warm plaster wall over a pale oak floor',
          });
          const done = await eventually(
            async () => {
              const r = await api.get(`/environment-generations/${run.environmentGenerationId}`);
              return ['completed', 'failed'].includes(r.status) ? r : undefined;
            },
            'the environment',
            120_000,
            200,
          );
          expect(done.status, JSON.stringify(done)).toBe('completed');
          const asset = await api.get(`/assets/${done.generatedAsset.assetId}`);
          expect(asset.contentCredentials).toMatchObject({
            validation: 'valid',
            signer: 'Test Operator Shop',
            developmentCertificate: false,
            actions: ['c2pa.created'],
          });
          const bytes = Buffer.from(await (await fetch(asset.url)).arrayBuffer());
          const r = await readIndependently(bytes);
          expect(r?.failures).toEqual([]);
          expect(r?.isValid).toBe(true);
          expect(r?.successes).toEqual(
            expect.arrayContaining(['claimSignature.validated', 'assertion.dataHash.match']),
          );
        },
        {
          ATELIER_C2PA_CERT_FILE: path.join(certs, 'chain.pem'),
          ATELIER_C2PA_KEY_FILE: path.join(certs, 'key.pem'),
        },
      );
      fs.rmSync(certs, { recursive: true, force: true });
    },
    240_000,
  );
});
