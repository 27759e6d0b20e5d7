import { createHash } from 'node:crypto';
import { Type } from 'typebox';
import { isPublicUrl } from '../../adapters/fetch/address-policy.ts';
import type { ObjectStorage } from '../../adapters/storage/storage.port.ts';
import type { InputHost } from '../../engines/image/provider-inputs.ts';
import type { JobDefinition, JobRef } from '../../jobs/types.ts';

/**
 * Input images for providers that take them by URL, served from our own storage: each is stored
 * once per day under `provider-inputs/<YYYY-MM-DD>/<sha256>.<ext>` and linked with the storage's
 * own short-lived signed links (`<ATELIER_PUBLIC_URL>/v1/blobs/…` for local storage, presigned
 * S3 URLs in the scaled mode). A daily purge removes the folders of past days, so an input lives
 * at most two days whatever happens to the job that sent it.
 *
 * ATELIER_INPUT_LINKS: `auto` (default) sends links only when their host looks public (a
 * localhost, private-range or LAN address cannot be fetched by a provider on the internet);
 * `on` always (the operator knows the address is reachable, e.g. through a tunnel); `off` never
 * (the providers' own upload APIs, or data URIs where documented, are used instead).
 */
export type InputLinksMode = 'auto' | 'on' | 'off';

const PREFIX = 'provider-inputs';
const EXT: Record<string, string> = { 'image/png': 'png', 'image/jpeg': 'jpg', 'image/webp': 'webp' };

const day = (d: Date) => d.toISOString().slice(0, 10);

export function createStorageInputHost(
  storage: Pick<ObjectStorage, 'head' | 'put' | 'createDownloadLink'>,
  o: { mode: InputLinksMode; now?: () => Date },
): InputHost | undefined {
  if (o.mode === 'off') return undefined;
  const now = o.now ?? (() => new Date());
  return {
    async publish(bytes, { contentType, ttlSeconds }) {
      const hash = createHash('sha256').update(bytes).digest('hex').slice(0, 32);
      const key = `${PREFIX}/${day(now())}/${hash}.${EXT[contentType] ?? 'bin'}`;
      // A link is signed without the object; decide first, so nothing is stored for nothing.
      const url = await storage.createDownloadLink(key, { expiresInSeconds: ttlSeconds, contentType });
      if (o.mode === 'auto' && !isPublicUrl(url)) return undefined;
      // The four variations of a forge send the same product: store it once a day.
      if (!(await storage.head(key))) await storage.put(key, bytes, { contentType });
      return url;
    },
  };
}

export const purgeProviderInputsJob: JobRef = { name: 'generation.purge-provider-inputs', payload: Type.Object({}) };
export const PURGE_PROVIDER_INPUTS_EVERY_MS = 6 * 3600_000;

/** Removes the input folders of the 2nd to the 9th day before today (earlier ones are gone already). */
export function providerInputsPurgeJob(deps: {
  storage: Pick<ObjectStorage, 'deletePrefix'>;
  now?: () => Date;
}): JobDefinition {
  const now = deps.now ?? (() => new Date());
  return {
    ...purgeProviderInputsJob,
    queue: 'maintenance',
    attempts: 1,
    async handler() {
      const today = now().getTime();
      for (let back = 2; back <= 9; back++) {
        await deps.storage.deletePrefix(`${PREFIX}/${day(new Date(today - back * 86_400_000))}/`);
      }
    },
  };
}
