import { AtelierError, ValidationError, WaitTimeoutError } from './errors.ts';
import { type FetchLike, type HttpResponse, sleep, Transport } from './http.ts';
import type {
  Asset,
  Brand,
  BrandDnaVersion,
  BrandList,
  EnvironmentGeneration,
  Extraction,
  GeneratedVideosGroup,
  ImageToVideoPromptEnhancement,
  SceneForge,
  ScenePromptEnhancement,
} from './openapi-types.ts';
import type { Body, CallOptions, OperationKey, Query, Success } from './types.ts';

export interface AtelierOptions {
  /** Server root, e.g. `https://atelier.example.com` (a trailing `/v1` is accepted). */
  baseUrl: string;
  /** `atl_<env>_<keyId>.<secret>`; required unless `credentials` (cookie auth in a browser) is set. */
  apiKey?: string;
  /** Cookie auth (the web console): fetch `credentials` for every authenticated call, e.g. `same-origin`. */
  credentials?: RequestInit['credentials'];
  /** Extra headers per authenticated call, e.g. `X-CSRF-Token` on non-GET requests with cookie auth. */
  headers?: (req: { method: string; url: string }) => Record<string, string> | undefined;
  /** A fetch implementation (default: the global fetch). */
  fetch?: FetchLike;
  /** Retries after the first attempt on 429, 5xx (idempotent calls) and network errors (default 3). */
  retries?: number;
  /** Per-attempt timeout in ms (default 60 000). */
  timeoutMs?: number;
  /** First backoff step in ms (default 500). */
  retryBaseMs?: number;
  /** Longest wait between attempts in ms (default 30 000). */
  maxRetryDelayMs?: number;
  /**
   * Send an `Idempotency-Key` with every POST (one UUID per call, reused by its retries) so that
   * POSTs can be retried on 5xx and lost answers too (Atelier replays the first answer for a
   * repeated key). Default true; false for a server that does not honour the header. A caller's
   * own `headers: { 'idempotency-key': … }` has the same effect per call.
   */
  idempotencyKeys?: boolean;
}

/** What `waitFor` can poll, and the resource each kind returns. */
export interface Pollable {
  asset: Asset;
  extraction: Extraction;
  brandDnaVersion: BrandDnaVersion;
  scene: SceneForge;
  environment: EnvironmentGeneration;
  enhancement: ScenePromptEnhancement;
  video: GeneratedVideosGroup;
  videoEnhancement: ImageToVideoPromptEnhancement;
}
export type PollableKind = keyof Pollable;

/** Terminal statuses per kind: polling stops at one of these. */
export const TERMINAL: Record<PollableKind, readonly string[]> = {
  asset: ['complete', 'failed', 'canceled'],
  extraction: ['completed', 'failed'],
  brandDnaVersion: ['ready', 'failed'],
  scene: ['completed', 'failed'],
  environment: ['completed', 'failed'],
  enhancement: ['completed', 'failed'],
  video: ['completed', 'failed'],
  videoEnhancement: ['completed', 'failed'],
};

export interface WaitProgress<K extends PollableKind = PollableKind> {
  kind: K;
  id: string;
  status: string;
  /** 0..1 when the resource has parts (scene variations, video variations), else undefined. */
  fraction: number | undefined;
  elapsedMs: number;
  resource: Pollable[K];
}

export interface WaitOptions<K extends PollableKind = PollableKind> {
  /** Give up after this long (default 10 minutes): WaitTimeoutError. */
  timeoutMs?: number;
  /** Between two reads (default 1000 ms). */
  intervalMs?: number;
  /** Called after every read. */
  onProgress?: (p: WaitProgress<K>) => void;
  signal?: AbortSignal;
  /** Brand of the resource: needed for brandDnaVersion, enhancement and videoEnhancement given by id. */
  brandId?: string;
}

/** A resource id, or the resource as a create call returned it. */
export type WaitTarget<K extends PollableKind> = string | Pollable[K];

export interface UploadOptions {
  /** Default: the file's base name (a path) or `upload.<ext>` (a buffer). */
  fileName?: string;
  /** Default: sniffed from the bytes, else from the file name. */
  contentType?: string;
  isLogo?: boolean;
  categoryId?: string;
  /** Poll until processing ends (default true); false returns the asset as confirm-upload gave it. */
  wait?: boolean;
  timeoutMs?: number;
  intervalMs?: number;
  onProgress?: (p: WaitProgress<'asset'> | { kind: 'upload'; stage: 'initiate' | 'put' | 'confirm' }) => void;
  signal?: AbortSignal;
}

type Args<K extends OperationKey> = {
  path?: Record<string, string>;
  query?: Query<K> | Record<string, unknown>;
  body?: Body<K>;
  headers?: Record<string, string>;
} & CallOptions;

const fill = (template: string, path: Record<string, string> = {}) =>
  template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const v = path[name];
    if (v === undefined || v === '') throw new TypeError(`Atelier: missing path parameter ${name}`);
    return encodeURIComponent(v);
  });

/**
 * The Atelier API client.
 *
 * ```ts
 * const atelier = new Atelier({ baseUrl: 'http://localhost:8080', apiKey: process.env.ATELIER_API_KEY! });
 * const brand = await atelier.brands.create({ name: 'Solidus', industry: 'Apparel', ... });
 * const cap = await atelier.uploadFile(brand.id, './cap.png');
 * const forge = await atelier.scenes.create(brand.id, { blendingPrompt: '...', promptIsEnhanced: false, productAssetIds: [cap.id] });
 * const done = await atelier.waitFor('scene', forge);
 * ```
 */
export class Atelier {
  readonly http: Transport;
  /** Last ETag seen per brand id (get, create, update), sent as If-Match by brands.update. */
  readonly #etags = new Map<string, string>();

  constructor(options: AtelierOptions) {
    if (!options?.apiKey && !options?.credentials) throw new TypeError('Atelier: apiKey is required');
    this.http = new Transport(options);
  }

  /** Calls one operation of the OpenAPI document, typed by its `"METHOD /path"` key. */
  async call<K extends OperationKey>(op: K, args: Args<K> = {}): Promise<HttpResponse<Success<K>>> {
    const space = op.indexOf(' ');
    return this.http.send<Success<K>>({
      method: op.slice(0, space),
      url: fill(op.slice(space + 1), args.path),
      query: args.query as Record<string, unknown> | undefined,
      body: args.body,
      headers: args.headers,
      signal: args.signal,
      timeoutMs: args.timeoutMs,
      retries: args.retries,
    });
  }

  async #data<K extends OperationKey>(op: K, args: Args<K> = {}): Promise<Success<K>> {
    return (await this.call(op, args)).data;
  }

  // ---- Brands -------------------------------------------------------------------------------

  readonly brands = {
    /** One page of the organization's brands (`links.next` when there are more). */
    list: (query: Query<'GET /v1/brands'> = {}, o: CallOptions = {}) => this.#data('GET /v1/brands', { query, ...o }),
    /** Every brand, page after page. */
    iterate: (query: Omit<Query<'GET /v1/brands'>, 'page'> = {}) => this.#iterateBrands(query),
    get: async (brandId: string, o: CallOptions = {}) => {
      const res = await this.call('GET /v1/brands/{brandId}', { path: { brandId }, ...o });
      this.#remember(brandId, res.headers);
      return res.data;
    },
    create: async (body: Body<'POST /v1/brands'>, o: CallOptions = {}) => {
      const res = await this.call('POST /v1/brands', { body, ...o });
      this.#remember(res.data.id, res.headers);
      return res.data;
    },
    /**
     * Updates a brand with `If-Match`: the ETag of this client's last read of the brand (get,
     * create or update), or of a fresh read when it has none. `ifMatch` overrides it (`*` skips
     * the check). A brand changed by someone else since is a PreconditionFailedError (412): get it
     * again, re-apply the change, update again.
     */
    update: async (
      brandId: string,
      body: Body<'PUT /v1/brands/{brandId}'>,
      o: CallOptions & { ifMatch?: string } = {},
    ) => {
      let etag = o.ifMatch ?? this.#etags.get(brandId);
      if (!etag) {
        await this.brands.get(brandId, o);
        etag = this.#etags.get(brandId) ?? '*';
      }
      const res = await this.call('PUT /v1/brands/{brandId}', {
        path: { brandId },
        body,
        ...o,
        headers: { ...o.headers, 'if-match': etag },
      });
      this.#remember(brandId, res.headers);
      return res.data;
    },
    /** The ETag this client holds for the brand, if any. */
    etag: (brandId: string) => this.#etags.get(brandId),
  };

  async *#iterateBrands(query: Omit<Query<'GET /v1/brands'>, 'page'>): AsyncGenerator<Brand> {
    for (let page = 1; ; page++) {
      const res: BrandList = await this.brands.list({ ...query, page });
      yield* res.data;
      if (!res.links.next) return;
    }
  }

  #remember(brandId: string, headers: Headers) {
    const etag = headers.get('etag');
    if (etag) this.#etags.set(brandId, etag);
  }

  // ---- Assets -------------------------------------------------------------------------------

  readonly assets = {
    get: (assetId: string, o: CallOptions = {}) => this.#data('GET /v1/assets/{assetId}', { path: { assetId }, ...o }),
    /** The brand's assets grouped by category. */
    list: (brandId: string, query: Query<'GET /v1/brands/{brandId}/assets'> = {}, o: CallOptions = {}) =>
      this.#data('GET /v1/brands/{brandId}/assets', { path: { brandId }, query, ...o }),
    initiateUpload: (body: Body<'POST /v1/assets/initiate-upload'>, o: CallOptions = {}) =>
      this.#data('POST /v1/assets/initiate-upload', { body, ...o }),
    /** Sends bytes to an upload link from initiateUpload (no API key: the link authorizes itself). */
    put: async (
      slot: { uploadUrl: string; uploadMethod?: string; uploadHeaders?: Record<string, string> },
      bytes: Uint8Array,
      o: CallOptions = {},
    ) => {
      await this.http.send({
        method: slot.uploadMethod ?? 'PUT',
        url: slot.uploadUrl,
        bytes,
        headers: { ...slot.uploadHeaders, ...o.headers },
        auth: false,
        signal: o.signal,
        timeoutMs: o.timeoutMs ?? Math.max(this.http.timeoutMs, 300_000),
        retries: o.retries,
      });
    },
    confirmUpload: (body: Body<'POST /v1/assets/confirm-upload'>, o: CallOptions = {}) =>
      this.#data('POST /v1/assets/confirm-upload', { body, ...o }),
    cancelUpload: (uploadId: string, o: CallOptions = {}) =>
      this.#data('POST /v1/assets/cancel-upload/{uploadId}', { path: { uploadId }, ...o }),
    /** initiate → PUT → confirm → wait until processing ends; see `Atelier.uploadFile`. */
    upload: (brandId: string, file: string | Uint8Array, o: UploadOptions = {}) => this.uploadFile(brandId, file, o),
  };

  // ---- URL extraction -----------------------------------------------------------------------

  readonly extractions = {
    /** Starts extracting candidate assets from a public page (202, `pending`); poll with waitFor('extraction'). */
    create: (body: Body<'POST /v1/assets/extract-from-url'>, o: CallOptions = {}) =>
      this.#data('POST /v1/assets/extract-from-url', { body, ...o }),
    get: (
      extractionId: string,
      query: Query<'GET /v1/assets/extract-from-url/{extractionId}'> = {},
      o: CallOptions = {},
    ) => this.#data('GET /v1/assets/extract-from-url/{extractionId}', { path: { extractionId }, query, ...o }),
    delete: async (extractionId: string, o: CallOptions = {}) => {
      await this.call('DELETE /v1/assets/extract-from-url/{extractionId}', { path: { extractionId }, ...o });
    },
    /** Commits candidates into assets (every kept candidate when `items` is left out). */
    commit: (
      extractionId: string,
      body: NonNullable<Body<'POST /v1/assets/extract-from-url/{extractionId}/commit'>> = {},
      o: CallOptions = {},
    ) => this.#data('POST /v1/assets/extract-from-url/{extractionId}/commit', { path: { extractionId }, body, ...o }),
  };

  // ---- Brand DNA ----------------------------------------------------------------------------

  readonly brandDna = {
    list: async (brandId: string, o: CallOptions = {}) =>
      (await this.#data('GET /v1/brands/{brandId}/brand-dna/versions', { path: { brandId }, ...o })).data,
    create: async (brandId: string, body: Body<'POST /v1/brands/{brandId}/brand-dna/versions'>, o: CallOptions = {}) =>
      (await this.#data('POST /v1/brands/{brandId}/brand-dna/versions', { path: { brandId }, body, ...o })).data,
    active: async (brandId: string, o: CallOptions = {}) =>
      (await this.#data('GET /v1/brands/{brandId}/brand-dna/active', { path: { brandId }, ...o })).data,
    get: async (brandId: string, versionId: string, o: CallOptions = {}) =>
      (
        await this.#data('GET /v1/brands/{brandId}/brand-dna/versions/{versionId}', {
          path: { brandId, versionId },
          ...o,
        })
      ).data,
    /** `updatedAt` must be the version's last returned value (409 STALE_UPDATE otherwise). */
    update: async (
      brandId: string,
      versionId: string,
      body: Body<'PUT /v1/brands/{brandId}/brand-dna/versions/{versionId}'>,
      o: CallOptions = {},
    ) =>
      (
        await this.#data('PUT /v1/brands/{brandId}/brand-dna/versions/{versionId}', {
          path: { brandId, versionId },
          body,
          ...o,
        })
      ).data,
    delete: async (brandId: string, versionId: string, o: CallOptions = {}) => {
      await this.call('DELETE /v1/brands/{brandId}/brand-dna/versions/{versionId}', {
        path: { brandId, versionId },
        ...o,
      });
    },
    activate: async (brandId: string, versionId: string, o: CallOptions = {}) =>
      (
        await this.#data('POST /v1/brands/{brandId}/brand-dna/versions/{versionId}/activate', {
          path: { brandId, versionId },
          ...o,
        })
      ).data,
    cancel: async (brandId: string, versionId: string, o: CallOptions = {}) => {
      await this.call('POST /v1/brands/{brandId}/brand-dna/versions/{versionId}/cancel', {
        path: { brandId, versionId },
        ...o,
      });
    },
    rerun: async (
      brandId: string,
      versionId: string,
      body: Body<'POST /v1/brands/{brandId}/brand-dna/versions/{versionId}/rerun'>,
      o: CallOptions = {},
    ) =>
      (
        await this.#data('POST /v1/brands/{brandId}/brand-dna/versions/{versionId}/rerun', {
          path: { brandId, versionId },
          body,
          ...o,
        })
      ).data,
    /** The legacy single-DNA view (`GET /v1/brands/{brandId}/dna`). */
    legacy: async (brandId: string, o: CallOptions = {}) =>
      (await this.#data('GET /v1/brands/{brandId}/dna', { path: { brandId }, ...o })).data,
  };

  // ---- Generation ---------------------------------------------------------------------------

  readonly scenes = {
    /** Starts a scene forge (202) with four pending variations; poll with waitFor('scene'). */
    create: (brandId: string, body: Body<'POST /v1/brands/{brandId}/scene-forges'>, o: CallOptions = {}) =>
      this.#data('POST /v1/brands/{brandId}/scene-forges', { path: { brandId }, body, ...o }),
    list: (brandId: string, query: Query<'GET /v1/brands/{brandId}/scene-forges'> = {}, o: CallOptions = {}) =>
      this.#data('GET /v1/brands/{brandId}/scene-forges', { path: { brandId }, query, ...o }),
    get: (id: string, o: CallOptions = {}) => this.#data('GET /v1/scene-forges/{id}', { path: { id }, ...o }),
    /** Refines one variation toward a score (202); poll the forge again. */
    refine: (id: string, body: Body<'POST /v1/scene-forges/{id}/refinements'>, o: CallOptions = {}) =>
      this.#data('POST /v1/scene-forges/{id}/refinements', { path: { id }, body, ...o }),
    /** Like or dislike a variation. */
    react: (
      id: string,
      generatedImageId: string,
      body: Body<'PATCH /v1/scene-forges/{id}/variations/{generatedImageId}'>,
      o: CallOptions = {},
    ) =>
      this.#data('PATCH /v1/scene-forges/{id}/variations/{generatedImageId}', {
        path: { id, generatedImageId },
        body,
        ...o,
      }),
  };

  readonly environments = {
    create: (brandId: string, body: Body<'POST /v1/brands/{brandId}/environment-generations'>, o: CallOptions = {}) =>
      this.#data('POST /v1/brands/{brandId}/environment-generations', { path: { brandId }, body, ...o }),
    get: (id: string, o: CallOptions = {}) =>
      this.#data('GET /v1/environment-generations/{id}', { path: { id }, ...o }),
  };

  /** Scene prompt enhancements. */
  readonly enhancements = {
    create: (
      brandId: string,
      body: Body<'POST /v1/brands/{brandId}/scene-forge-prompt-enhancements'>,
      o: CallOptions = {},
    ) => this.#data('POST /v1/brands/{brandId}/scene-forge-prompt-enhancements', { path: { brandId }, body, ...o }),
    get: (brandId: string, id: string, o: CallOptions = {}) =>
      this.#data('GET /v1/brands/{brandId}/scene-forge-prompt-enhancements/{id}', { path: { brandId, id }, ...o }),
  };

  readonly videos = {
    /** Starts video generation (202): `{ data: [group] }` with one pending variation per prompt. */
    create: (brandId: string, body: Body<'POST /v1/brands/{brandId}/generate-video'>, o: CallOptions = {}) =>
      this.#data('POST /v1/brands/{brandId}/generate-video', { path: { brandId }, body, ...o }),
    list: (
      brandId: string,
      query: Query<'GET /v1/brands/{brandId}/generated-videos-groups'> = {},
      o: CallOptions = {},
    ) => this.#data('GET /v1/brands/{brandId}/generated-videos-groups', { path: { brandId }, query, ...o }),
    get: (generatedVideosGroupId: string, o: CallOptions = {}) =>
      this.#data('GET /v1/generated-videos-groups/{generatedVideosGroupId}', {
        path: { generatedVideosGroupId },
        ...o,
      }),
  };

  /** Image-to-video prompt enhancements. */
  readonly videoEnhancements = {
    create: (
      brandId: string,
      body: Body<'POST /v1/brands/{brandId}/image-to-video-prompt-enhancements'>,
      o: CallOptions = {},
    ) => this.#data('POST /v1/brands/{brandId}/image-to-video-prompt-enhancements', { path: { brandId }, body, ...o }),
    get: (brandId: string, id: string, o: CallOptions = {}) =>
      this.#data('GET /v1/brands/{brandId}/image-to-video-prompt-enhancements/{id}', { path: { brandId, id }, ...o }),
  };

  readonly usage = {
    /** Feature usage of the key's organization: pools (usage, cap, remaining), plan, gated features. */
    get: async (o: CallOptions = {}) => (await this.#data('GET /v1/organizations/current/feature-usage', o)).data,
  };

  // ---- Webhook endpoints (admins and owners) ------------------------------------------------

  readonly webhooks = {
    /** One page of the organization's endpoints (never with their secrets). */
    list: (query: Query<'GET /v1/webhook-endpoints'> = {}, o: CallOptions = {}) =>
      this.#data('GET /v1/webhook-endpoints', { query, ...o }),
    /** Creates an endpoint; `secret` (whsec_…) is in this answer only: store it. */
    create: (body: Body<'POST /v1/webhook-endpoints'>, o: CallOptions = {}) =>
      this.#data('POST /v1/webhook-endpoints', { body, ...o }),
    get: (endpointId: string, o: CallOptions = {}) =>
      this.#data('GET /v1/webhook-endpoints/{endpointId}', { path: { endpointId }, ...o }),
    /** Changes the members given (`events: null`: every event; `enabled: false` pauses it). */
    update: (endpointId: string, body: Body<'PATCH /v1/webhook-endpoints/{endpointId}'>, o: CallOptions = {}) =>
      this.#data('PATCH /v1/webhook-endpoints/{endpointId}', { path: { endpointId }, body, ...o }),
    delete: async (endpointId: string, o: CallOptions = {}) => {
      await this.call('DELETE /v1/webhook-endpoints/{endpointId}', { path: { endpointId }, ...o });
    },
    /**
     * A new secret (in this answer only). For `overlapSeconds` (default a day) deliveries carry
     * a signature made with the old secret too, so receivers can switch in their own time.
     */
    rotateSecret: (
      endpointId: string,
      body: Body<'POST /v1/webhook-endpoints/{endpointId}/rotate-secret'> = {},
      o: CallOptions = {},
    ) => this.#data('POST /v1/webhook-endpoints/{endpointId}/rotate-secret', { path: { endpointId }, body, ...o }),
    /** Sends a `webhook.test` event now; `status` says whether the receiver took it. */
    test: (endpointId: string, o: CallOptions = {}) =>
      this.#data('POST /v1/webhook-endpoints/{endpointId}/test', { path: { endpointId }, ...o }),
    /** One page of the endpoint's delivery log, newest first. */
    deliveries: (
      endpointId: string,
      query: Query<'GET /v1/webhook-endpoints/{endpointId}/deliveries'> = {},
      o: CallOptions = {},
    ) => this.#data('GET /v1/webhook-endpoints/{endpointId}/deliveries', { path: { endpointId }, query, ...o }),
  };

  // ---- Polling, uploads, downloads ----------------------------------------------------------

  /** Reads a pollable resource once. */
  async read<K extends PollableKind>(kind: K, target: WaitTarget<K>, o: CallOptions & { brandId?: string } = {}) {
    const { id, brandId } = identify(kind, target, o.brandId);
    const needBrand = () => {
      if (!brandId) throw new TypeError(`Atelier: waitFor('${kind}', id) needs { brandId }`);
      return brandId;
    };
    const read: () => Promise<unknown> = {
      asset: () => this.assets.get(id, o),
      extraction: () => this.extractions.get(id, {}, o),
      brandDnaVersion: () => this.brandDna.get(needBrand(), id, o),
      scene: () => this.scenes.get(id, o),
      environment: () => this.environments.get(id, o),
      enhancement: () => this.enhancements.get(needBrand(), id, o),
      video: () => this.videos.get(id, o),
      videoEnhancement: () => this.videoEnhancements.get(needBrand(), id, o),
    }[kind];
    return { id, resource: (await read()) as Pollable[K] };
  }

  /**
   * Polls a resource until its status is terminal (asset: complete, failed, canceled; Brand DNA
   * version: ready, failed; everything else: completed, failed) and returns it. A `failed`
   * resource is returned, not thrown: check `status`. WaitTimeoutError after `timeoutMs`.
   */
  async waitFor<K extends PollableKind>(kind: K, target: WaitTarget<K>, o: WaitOptions<K> = {}): Promise<Pollable[K]> {
    const timeoutMs = o.timeoutMs ?? 600_000;
    const intervalMs = o.intervalMs ?? 1000;
    const started = Date.now();
    for (;;) {
      const { id, resource } = await this.read(kind, target, {
        ...(o.brandId ? { brandId: o.brandId } : {}),
        ...(o.signal ? { signal: o.signal } : {}),
      });
      const status = (resource as { status: string }).status;
      o.onProgress?.({
        kind,
        id,
        status,
        fraction: fraction(kind, resource),
        elapsedMs: Date.now() - started,
        resource,
      });
      if (TERMINAL[kind].includes(status)) return resource;
      if (Date.now() - started + intervalMs > timeoutMs) {
        throw new WaitTimeoutError({
          status: 0,
          code: 'WAIT_TIMEOUT',
          message: `${kind} ${id} still ${status} after ${Math.round((Date.now() - started) / 1000)} s`,
        });
      }
      await sleep(intervalMs, o.signal);
    }
  }

  /**
   * Uploads one file to a brand: initiate-upload → PUT the bytes to the signed link (no key) →
   * confirm-upload → wait until processing ends (unless `wait: false`). Returns the Asset; its
   * `status` is `complete` when it can be used in generation (or `failed`, with `errorCode`).
   */
  async uploadFile(brandId: string, file: string | Uint8Array, o: UploadOptions = {}): Promise<Asset> {
    let bytes: Uint8Array;
    let name = o.fileName;
    if (typeof file === 'string') {
      const [{ readFile }, { basename }] = await Promise.all([import('node:fs/promises'), import('node:path')]);
      bytes = new Uint8Array(await readFile(file));
      name ??= basename(file);
    } else bytes = file;
    const type = o.contentType ?? sniffType(bytes) ?? (name ? typeFromName(name) : undefined);
    if (!type) {
      throw new ValidationError({
        status: 0,
        code: 'UNKNOWN_CONTENT_TYPE',
        message: 'could not tell the file type: pass { contentType }',
      });
    }
    name ??= `upload.${EXT_OF[type] ?? 'bin'}`;
    const call = o.signal ? { signal: o.signal } : {};
    o.onProgress?.({ kind: 'upload', stage: 'initiate' });
    const { uploads } = await this.assets.initiateUpload(
      {
        brandId,
        ...(o.categoryId ? { categoryId: o.categoryId } : {}),
        files: [
          {
            fileName: name,
            fileType: type,
            fileSize: bytes.length,
            ...(o.isLogo !== undefined ? { isLogo: o.isLogo } : {}),
          },
        ],
      },
      call,
    );
    const slot = uploads[0];
    if (!slot)
      throw new AtelierError({ status: 0, code: 'NO_UPLOAD_SLOT', message: 'initiate-upload returned no slot' });
    o.onProgress?.({ kind: 'upload', stage: 'put' });
    await this.assets.put(slot, bytes, call);
    o.onProgress?.({ kind: 'upload', stage: 'confirm' });
    const asset = await this.assets.confirmUpload({ uploadId: slot.uploadId }, call);
    if (o.wait === false) return asset;
    return this.waitFor('asset', asset.id, {
      ...(o.timeoutMs ? { timeoutMs: o.timeoutMs } : {}),
      ...(o.intervalMs ? { intervalMs: o.intervalMs } : {}),
      ...(o.onProgress ? { onProgress: o.onProgress } : {}),
      ...call,
    });
  }

  /** Downloads a signed link (asset `url`, video `previewUrl`…) as bytes; no key is sent. */
  download(url: string, o: { signal?: AbortSignal } = {}): Promise<Uint8Array> {
    return this.http.download(url, o);
  }
}

function identify(kind: PollableKind, target: unknown, brandId: string | undefined): { id: string; brandId?: string } {
  if (typeof target === 'string') return { id: target, ...(brandId ? { brandId } : {}) };
  const r = target as Record<string, unknown>;
  const key = {
    asset: 'id',
    extraction: 'extractionId',
    brandDnaVersion: 'versionId',
    scene: 'sceneForgeId',
    environment: 'environmentGenerationId',
    enhancement: 'promptEnhancementId',
    video: 'generatedVideosGroupId',
    videoEnhancement: 'promptEnhancementId',
  }[kind];
  const id = r?.[key];
  if (typeof id !== 'string') throw new TypeError(`Atelier: waitFor('${kind}', …) needs an id or a ${kind} resource`);
  const b = brandId ?? (typeof r.brandId === 'string' ? r.brandId : undefined);
  return { id, ...(b ? { brandId: b } : {}) };
}

function fraction(kind: PollableKind, resource: unknown): number | undefined {
  const parts =
    kind === 'scene' || kind === 'video' ? (resource as { variations?: { status: string }[] }).variations : undefined;
  if (!parts?.length) return undefined;
  return parts.filter((v) => v.status === 'completed' || v.status === 'failed').length / parts.length;
}

const EXT_OF: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/tiff': 'tiff',
  'video/mp4': 'mp4',
  'video/quicktime': 'mov',
  'application/pdf': 'pdf',
};
/** The file types the API accepts, by extension (the console's file picker offers the same). */
export const TYPES_BY_EXTENSION: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  tif: 'image/tiff',
  tiff: 'image/tiff',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  pdf: 'application/pdf',
  doc: 'application/msword',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  ttf: 'font/ttf',
  otf: 'font/otf',
  woff: 'font/woff',
  woff2: 'font/woff2',
};

/** MIME type from a file name's extension. */
export function typeFromName(name: string): string | undefined {
  return TYPES_BY_EXTENSION[name.split('.').pop()?.toLowerCase() ?? ''];
}

/** MIME type from the first bytes, for the formats the API takes that have a clear signature. */
export function sniffType(b: Uint8Array): string | undefined {
  const at = (offset: number, ...sig: number[]) => sig.every((v, i) => b[offset + i] === v);
  if (at(0, 0x89, 0x50, 0x4e, 0x47)) return 'image/png';
  if (at(0, 0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (at(0, 0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (at(0, 0x49, 0x49, 0x2a, 0x00) || at(0, 0x4d, 0x4d, 0x00, 0x2a)) return 'image/tiff';
  if (at(0, 0x25, 0x50, 0x44, 0x46)) return 'application/pdf';
  if (at(4, 0x66, 0x74, 0x79, 0x70)) return at(8, 0x71, 0x74, 0x20, 0x20) ? 'video/quicktime' : 'video/mp4';
  return undefined;
}
