import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config.ts';
import { deliveryId, eventPayload, eventType, matches } from './webhooks.events.ts';
import type { FetchOptions, Fetcher } from '../../adapters/fetch/fetcher.ts';
import type { EndpointRow, DeliveryRow, WebhooksRepo } from './webhooks.repo.ts';
import {
  attemptJobId,
  checkEndpointUrl,
  createWebhooksService,
  parseEventFilter,
  retryDelay,
  signingSecrets,
  WebhookInputError,
} from './webhooks.service.ts';
import { generateSecret, secretKey, sign, signedHeaders, verify } from './webhooks.signature.ts';

/**
 * The published Standard Webhooks vector: standard-webhooks/standard-webhooks,
 * libraries/javascript/src/webhook.test.ts, test "sign function works".
 */
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  body: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};

describe('Standard Webhooks signatures', () => {
  it('reproduces the reference vector', () => {
    expect(sign(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
    // The prefix is optional for the key, as in the reference libraries.
    expect(sign(VECTOR.secret.slice(6), VECTOR.id, VECTOR.timestamp, VECTOR.body)).toBe(VECTOR.signature);
    expect(signedHeaders([VECTOR.secret], VECTOR.id, VECTOR.timestamp, VECTOR.body)).toEqual({
      'webhook-id': VECTOR.id,
      'webhook-timestamp': '1614265330',
      'webhook-signature': VECTOR.signature,
    });
  });

  it('matches an independent HMAC over "{id}.{timestamp}.{body}" with the decoded key', () => {
    const secret = generateSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(secretKey(secret)).toHaveLength(32);
    const body = JSON.stringify({ type: 'scene_forge.completed', data: { id: 'x', note: 'é ✓' } });
    const mac = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
      .update(Buffer.from(`msg_1.1700000000.${body}`, 'utf8'))
      .digest('base64');
    expect(sign(secret, 'msg_1', 1_700_000_000, body)).toBe(`v1,${mac}`);
    expect(generateSecret()).not.toBe(secret);
  });

  it('verifies like a receiver: tolerance, several signatures, tampering, missing headers', () => {
    const headers = signedHeaders([VECTOR.secret], VECTOR.id, VECTOR.timestamp, VECTOR.body);
    const at = { nowSeconds: VECTOR.timestamp + 10 };
    expect(verify(VECTOR.secret, headers, VECTOR.body, at)).toBeUndefined();
    expect(
      verify(
        VECTOR.secret,
        { ...headers, 'webhook-signature': `v1,AAAA v2,${headers['webhook-signature'].slice(3)} ${VECTOR.signature}` },
        VECTOR.body,
        at,
      ),
    ).toBeUndefined();
    expect(verify(VECTOR.secret, headers, `${VECTOR.body} `, at)).toBe('NO_MATCHING_SIGNATURE');
    expect(verify(generateSecret(), headers, VECTOR.body, at)).toBe('NO_MATCHING_SIGNATURE');
    expect(verify(VECTOR.secret, headers, VECTOR.body, { nowSeconds: VECTOR.timestamp + 301 })).toBe(
      'TIMESTAMP_OUT_OF_TOLERANCE',
    );
    expect(verify(VECTOR.secret, { ...headers, 'webhook-timestamp': 'soon' }, VECTOR.body, at)).toBe('BAD_TIMESTAMP');
    expect(verify(VECTOR.secret, { 'webhook-id': VECTOR.id }, VECTOR.body, at)).toBe('MISSING_HEADERS');
  });
});

describe('webhook events', () => {
  const change = {
    kind: 'scene_forge' as const,
    id: 'f1',
    orgId: 'o1',
    brandId: 'b1',
    status: 'completed',
    terminal: true,
    at: '2026-01-02T03:04:05.000Z',
  };

  it('names events <kind>.<status>, with asset "complete" spelled "completed"', () => {
    expect(eventType(change)).toBe('scene_forge.completed');
    expect(eventType({ kind: 'video_group', status: 'failed' })).toBe('video_group.failed');
    expect(eventType({ kind: 'brand_dna_version', status: 'ready' })).toBe('brand_dna_version.ready');
    expect(eventType({ kind: 'asset', status: 'complete' })).toBe('asset.completed');
    expect(eventType({ kind: 'asset', status: 'failed' })).toBe('asset.failed');
  });

  it('carries the Standard Webhooks payload shape with the identity only', () => {
    expect(eventPayload(change)).toEqual({
      type: 'scene_forge.completed',
      timestamp: change.at,
      data: { id: 'f1', kind: 'scene_forge', status: 'completed', brandId: 'b1', organizationId: 'o1' },
    });
    const { brandId: _b, ...noBrand } = change;
    expect(eventPayload(noBrand).data).not.toHaveProperty('brandId');
  });

  it('filters by type or family; [] takes everything', () => {
    expect(matches([], 'scene_forge.completed')).toBe(true);
    expect(matches(['scene_forge.completed'], 'scene_forge.completed')).toBe(true);
    expect(matches(['scene_forge.*'], 'scene_forge.failed')).toBe(true);
    expect(matches(['scene_forge.*'], 'scene_forge_x.failed')).toBe(false);
    expect(matches(['video_group.failed'], 'scene_forge.failed')).toBe(false);
  });

  it('derives one delivery id per endpoint, event and resource (a valid job id)', () => {
    const id = deliveryId('we_1', 'scene_forge.completed', 'f1');
    expect(id).toMatch(/^msg_[0-9a-f]{32}$/);
    expect(deliveryId('we_1', 'scene_forge.completed', 'f1')).toBe(id);
    expect(deliveryId('we_2', 'scene_forge.completed', 'f1')).not.toBe(id);
    expect(deliveryId('we_1', 'scene_forge.failed', 'f1')).not.toBe(id);
    expect(attemptJobId(id, 1)).toBe(id);
    expect(attemptJobId(id, 3)).toBe(`${id}.a3`);
  });

  it('backs off along the schedule with ±20 % jitter', () => {
    const schedule = loadConfig({}).webhooks.retryScheduleMs;
    expect(schedule).toEqual([30_000, 120_000, 600_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000]);
    // Eight attempts over about 22.2 hours.
    expect(schedule.reduce((a, b) => a + b, 0) / 3_600_000).toBeCloseTo(22.21, 1);
    expect(retryDelay(schedule, 1, () => 0)).toBe(24_000);
    expect(retryDelay(schedule, 1, () => 1)).toBe(36_000);
    expect(retryDelay(schedule, 7, () => 0.5)).toBe(43_200_000);
    for (let i = 0; i < 100; i++) {
      const d = retryDelay(schedule, 2);
      expect(d).toBeGreaterThanOrEqual(96_000);
      expect(d).toBeLessThanOrEqual(144_000);
    }
  });

  it('reads ATELIER_WEBHOOK_RETRY_SCHEDULE and refuses bad values', () => {
    expect(loadConfig({ ATELIER_WEBHOOK_RETRY_SCHEDULE: '50ms, 1s,2m' }).webhooks.retryScheduleMs).toEqual([
      50, 1000, 120_000,
    ]);
    for (const bad of ['x', '10', '0s', '25h', '1s,,2s', '1.5s']) {
      expect(() => loadConfig({ ATELIER_WEBHOOK_RETRY_SCHEDULE: bad })).toThrow(ConfigError);
    }
    expect(loadConfig({ ATELIER_WEBHOOK_CONCURRENCY: '16' }).webhooks.concurrency).toBe(16);
  });

  it('accepts only http(s) endpoint URLs without credentials', () => {
    expect(checkEndpointUrl('https://hooks.example.com/atelier')).toBe('https://hooks.example.com/atelier');
    expect(checkEndpointUrl('http://10.0.0.1:8080/x')).toBe('http://10.0.0.1:8080/x'); // checked at delivery
    for (const bad of [
      'ftp://example.com/',
      'file:///etc/passwd',
      'javascript:alert(1)',
      'nope',
      'https://u:p@x.com/',
      `https://example.com/${'a'.repeat(2048)}`,
    ]) {
      expect(() => checkEndpointUrl(bad)).toThrow();
    }
  });
});

describe('webhook input', () => {
  it('reads event filters: trimmed, distinct; every bad entry named; an empty list refused', () => {
    expect(parseEventFilter([' scene_forge.* ', 'video_group.failed', 'scene_forge.*'])).toEqual({
      ok: true,
      value: ['scene_forge.*', 'video_group.failed'],
    });
    const bad = parseEventFilter(['scene_forge.*', 'Everything!', '', 'a.b.c']);
    expect(bad).toMatchObject({ ok: false, problems: [{ field: 'events.1' }, { field: 'events.3' }] });
    for (const empty of [[], [''], [' ', '  ']]) {
      expect(parseEventFilter(empty)).toMatchObject({
        ok: false,
        problems: [{ field: 'events', message: expect.stringMatching(/names no event/) }],
      });
    }
  });

  it('names the member a bad URL is in', () => {
    const err = (() => {
      try {
        checkEndpointUrl('ftp://example.com/');
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(WebhookInputError);
    expect((err as WebhookInputError).problems).toEqual([
      { field: 'url', message: 'must be http or https (got "ftp:")' },
    ]);
  });
});

describe('secret rotation', () => {
  const T0 = Date.parse('2026-03-01T00:00:00.000Z');
  const HOUR = 3_600_000;

  it('signs with every secret given, each signature verifiable on its own', () => {
    const [a, b, c] = [generateSecret(), generateSecret(), generateSecret()];
    const headers = signedHeaders([a, b], 'msg_1', 1_700_000_000, '{}');
    expect(headers['webhook-signature'].split(' ')).toEqual([
      sign(a, 'msg_1', 1_700_000_000, '{}'),
      sign(b, 'msg_1', 1_700_000_000, '{}'),
    ]);
    const at = { nowSeconds: 1_700_000_000 };
    expect(verify(a, headers, '{}', at)).toBeUndefined();
    expect(verify(b, headers, '{}', at)).toBeUndefined();
    expect(verify(c, headers, '{}', at)).toBe('NO_MATCHING_SIGNATURE');
    expect(() => signedHeaders([], 'msg_1', 1, '{}')).toThrow();
  });

  it('keeps the previous secret until its overlap ends, not a moment longer', () => {
    const row = {
      secret: 'whsec_new',
      previous_secret: 'whsec_old',
      previous_secret_expires_at: new Date(T0 + HOUR).toISOString(),
    };
    expect(signingSecrets(row, new Date(T0))).toEqual(['whsec_new', 'whsec_old']);
    expect(signingSecrets(row, new Date(T0 + HOUR - 1))).toEqual(['whsec_new', 'whsec_old']);
    expect(signingSecrets(row, new Date(T0 + HOUR))).toEqual(['whsec_new']);
    expect(signingSecrets({ ...row, previous_secret: null }, new Date(T0))).toEqual(['whsec_new']);
    expect(signingSecrets({ ...row, previous_secret_expires_at: null }, new Date(T0))).toEqual(['whsec_new']);
  });

  /** The service on an in-memory repo, a fetcher that records what it would send, and a clock the test moves. */
  function harness() {
    let now = T0;
    const endpoints = new Map<string, EndpointRow>();
    const deliveries = new Map<string, DeliveryRow>();
    const repo = {
      insertEndpoint: async (r: EndpointRow) => void endpoints.set(r.id, { ...r }),
      getEndpoint: async (id: string) => endpoints.get(id),
      countEndpoints: async (orgId: string) =>
        [...endpoints.values()].filter((e) => e.organization_id === orgId).length,
      // As the SQL does it: the replaced secret becomes the previous one (or none without overlap).
      rotateSecret: async (id: string, secret: string, until: string | null, at: string) => {
        const e = endpoints.get(id);
        if (!e) return false;
        endpoints.set(id, {
          ...e,
          previous_secret: until === null ? null : e.secret,
          previous_secret_expires_at: until,
          secret,
          updated_at: at,
        });
        return true;
      },
      insertDelivery: async (r: DeliveryRow) => Boolean(deliveries.set(r.id, { ...r })),
      getDelivery: async (id: string) => deliveries.get(id),
      recordAttempt: async (id: string, attempt: number, set: Partial<DeliveryRow>) =>
        Boolean(deliveries.set(id, { ...deliveries.get(id)!, ...set, attempts: attempt })),
    };
    const sent: { headers: Record<string, string>; body: string }[] = [];
    const fetcher: Fetcher = {
      async fetch(url, o?: FetchOptions) {
        sent.push({ headers: o?.headers as Record<string, string>, body: String(o?.body) });
        return {
          url: String(url),
          status: 204,
          headers: {},
          body: Buffer.alloc(0),
          contentType: undefined,
          redirects: [],
        };
      },
    };
    const service = createWebhooksService({
      clock: () => new Date(now),
      fetcher,
      jobs: {} as never,
      repo: repo as unknown as WebhooksRepo,
      deliverJob: { name: 'webhooks.deliver' } as never,
      retryScheduleMs: [],
      orgExists: async () => true,
    });
    /** Sends a test event now; which of `secrets` its signature verifies with (as a receiver at that time). */
    async function verifiedBy(id: string, secrets: Record<string, string>): Promise<string[]> {
      await service.sendTest(id);
      const { headers, body } = sent.at(-1)!;
      const nowSeconds = Math.floor(now / 1000);
      return Object.keys(secrets).filter((name) => verify(secrets[name]!, headers, body, { nowSeconds }) === undefined);
    }
    const advance = (ms: number) => {
      now += ms;
    };
    return { service, verifiedBy, advance };
  }

  it('a delivery during the overlap verifies with either secret, after it only with the new one', async () => {
    const h = harness();
    const { endpoint, secret: first } = await h.service.addEndpoint({ orgId: 'o1', url: 'https://hooks.example.com/' });
    expect(await h.verifiedBy(endpoint.id, { first })).toEqual(['first']);

    const rotated = await h.service.rotateSecret(endpoint.id, 3600);
    const second = rotated.secret;
    expect(second).not.toBe(first);
    expect(rotated.endpoint.previousSecretExpiresAt).toBe(new Date(T0 + HOUR).toISOString());
    expect(await h.verifiedBy(endpoint.id, { first, second })).toEqual(['first', 'second']);
    h.advance(HOUR - 1000);
    expect(await h.verifiedBy(endpoint.id, { first, second })).toEqual(['first', 'second']);
    h.advance(1000);
    expect(await h.verifiedBy(endpoint.id, { first, second })).toEqual(['second']);
    expect((await h.service.getEndpoint(endpoint.id)).previousSecretExpiresAt).toBeNull();
  });

  it('rotates at once without overlap; a second rotation during an overlap drops the oldest secret', async () => {
    const h = harness();
    const { endpoint, secret: first } = await h.service.addEndpoint({ orgId: 'o1', url: 'https://hooks.example.com/' });
    const { secret: second, endpoint: after } = await h.service.rotateSecret(endpoint.id, 0);
    expect(after.previousSecretExpiresAt).toBeNull();
    expect(await h.verifiedBy(endpoint.id, { first, second })).toEqual(['second']);
    const { secret: third } = await h.service.rotateSecret(endpoint.id, 600);
    h.advance(60_000);
    const { secret: fourth } = await h.service.rotateSecret(endpoint.id, 600);
    expect(await h.verifiedBy(endpoint.id, { second, third, fourth })).toEqual(['third', 'fourth']);
    // The default overlap is a day.
    const { endpoint: daily } = await h.service.rotateSecret(endpoint.id);
    expect(Date.parse(daily.previousSecretExpiresAt!) - (T0 + 60_000)).toBe(24 * HOUR);
  });

  it('refuses an overlap that is not 0..7 days in whole seconds', async () => {
    const h = harness();
    const { endpoint } = await h.service.addEndpoint({ orgId: 'o1', url: 'https://hooks.example.com/' });
    for (const bad of [-1, 1.5, 7 * 86_400 + 1, Number.NaN]) {
      await expect(h.service.rotateSecret(endpoint.id, bad)).rejects.toMatchObject({
        problems: [{ field: 'overlapSeconds' }],
      });
    }
    expect((await h.service.rotateSecret(endpoint.id, 7 * 86_400)).endpoint.previousSecretExpiresAt).not.toBeNull();
  });
});
