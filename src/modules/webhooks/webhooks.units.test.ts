import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config.ts';
import { deliveryId, eventPayload, eventType, matches } from './webhooks.events.ts';
import { attemptJobId, checkEndpointUrl, retryDelay } from './webhooks.service.ts';
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
    expect(signedHeaders(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body)).toEqual({
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
    const headers = signedHeaders(VECTOR.secret, VECTOR.id, VECTOR.timestamp, VECTOR.body);
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
