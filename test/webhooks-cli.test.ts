import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tmpDir } from './helpers/app.ts';
import { atelierInProcess } from './helpers/cli.ts';
import { bareEnv } from './helpers/processes.ts';

/**
 * `atelier admin webhook …` (runCli in this process: the admin commands as real processes are
 * test/cli.test.ts's) on a temporary data directory, against a local receiver. The CLI uses the app's SSRF-safe fetcher: a loopback
 * receiver is refused unless ATELIER_ALLOW_PRIVATE_FETCH is on.
 */
const SLOW = 180_000;

describe('atelier admin webhook', () => {
  const dataDir = tmpDir('atelier-webhook-cli-');
  const atelier = (args: string[], extra: Record<string, string> = {}) =>
    atelierInProcess(args, bareEnv({ ATELIER_DATA_DIR: dataDir, ...extra }));
  async function admin<T = Record<string, unknown>>(args: string[], extra: Record<string, string> = {}): Promise<T> {
    const r = await atelier(['admin', ...args, '--json'], extra);
    expect(r.code, `${args.join(' ')}: ${r.stderr}`).toBe(0);
    return JSON.parse(r.stdout) as T;
  }

  let receiver: http.Server;
  let hookUrl: string;
  const hits: { headers: http.IncomingHttpHeaders; body: string }[] = [];
  let orgId: string;

  beforeAll(async () => {
    receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => {
        body += c;
      });
      req.on('end', () => {
        hits.push({ headers: req.headers, body });
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
    orgId = (await admin<{ organizationId: string }>(['bootstrap'])).organizationId;
  }, SLOW);

  afterAll(async () => {
    await new Promise((r) => receiver?.close(r));
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it(
    'add prints the id and the secret once; list, test, disable/enable and remove work',
    async () => {
      const added = await admin<Record<string, unknown>>([
        'webhook',
        'add',
        '--org',
        orgId,
        '--url',
        hookUrl,
        '--events',
        'scene_forge.completed,video_group.*',
        '--description',
        'CI receiver',
      ]);
      expect(added).toMatchObject({
        organizationId: orgId,
        url: hookUrl,
        events: ['scene_forge.completed', 'video_group.*'],
        description: 'CI receiver',
        enabled: true,
      });
      const id = added.id as string;
      const secret = added.secret as string;
      expect(id).toMatch(/^we_[0-9a-f]{32}$/);
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);

      // The app's fetcher refuses the loopback receiver: the test fails, with the reason, exit 1.
      const refused = await atelier(['admin', 'webhook', 'test', id]);
      expect(refused.code).toBe(1);
      expect(refused.stdout).toMatch(/failed: BLOCKED_ADDRESS/);
      expect(refused.stderr).toMatch(/the test delivery failed/);
      expect(hits).toHaveLength(0);

      // With private fetches allowed (local testing), it is delivered and verifies.
      const sent = await admin<Record<string, unknown>>(['webhook', 'test', id], {
        ATELIER_ALLOW_PRIVATE_FETCH: 'true',
      });
      expect(sent).toMatchObject({ status: 'delivered', attempts: 1, lastStatusCode: 200, eventType: 'webhook.test' });
      expect(hits).toHaveLength(1);
      const { headers, body } = hits[0]!;
      expect(headers['webhook-id']).toBe(sent.id);
      const mac = createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
        .update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`)
        .digest('base64');
      expect(headers['webhook-signature']).toBe(`v1,${mac}`);
      expect(JSON.parse(body)).toMatchObject({ type: 'webhook.test', data: { id, organizationId: orgId } });

      // list: no secret, the latest deliveries (newest first).
      const [listed, ...others] = await admin<Record<string, unknown>[]>(['webhook', 'list', '--org', orgId]);
      expect(others).toHaveLength(0);
      expect(listed).not.toHaveProperty('secret');
      expect(listed!.recentDeliveries).toMatchObject([
        { id: sent.id, status: 'delivered' },
        { status: 'failed', lastError: expect.stringMatching(/^BLOCKED_ADDRESS/) },
      ]);
      const human = await atelier(['admin', 'webhook', 'list', '--org', orgId]);
      expect(human.code, human.stderr).toBe(0);
      expect(human.stdout).toContain(
        `${id}  enabled   ${hookUrl}  events=scene_forge.completed,video_group.*  "CI receiver"`,
      );
      expect(human.stdout).toMatch(/delivered {2}webhook\.test {2}attempts=1 {2}http=200/);
      expect(human.stdout).not.toContain(secret);

      expect(await admin(['webhook', 'disable', id])).toMatchObject({ id, enabled: false });
      expect(await admin(['webhook', 'enable', id])).toMatchObject({ id, enabled: true });
      expect(await admin(['webhook', 'deliveries', id, '--limit', '1'])).toHaveLength(1);

      expect(await admin(['webhook', 'remove', id])).toEqual({ removed: id });
      expect(await admin(['webhook', 'list', '--org', orgId])).toEqual([]);
      const again = await atelier(['admin', 'webhook', 'remove', id]);
      expect(again.code).toBe(1);
      expect(again.stderr).toContain(`no webhook endpoint ${id}`);
    },
    SLOW,
  );

  it(
    'rotate prints a new secret once; deliveries carry both signatures until the overlap ends',
    async () => {
      const { id, secret: first } = await admin<{ id: string; secret: string }>([
        'webhook',
        'add',
        '--org',
        orgId,
        '--url',
        hookUrl,
      ]);
      const mac = (secret: string, h: http.IncomingHttpHeaders, body: string) =>
        `v1,${createHmac('sha256', Buffer.from(secret.slice(6), 'base64'))
          .update(`${h['webhook-id']}.${h['webhook-timestamp']}.${body}`)
          .digest('base64')}`;
      const signatures = async () => {
        await admin(['webhook', 'test', id], { ATELIER_ALLOW_PRIVATE_FETCH: 'true' });
        const { headers, body } = hits.at(-1)!;
        return { sent: String(headers['webhook-signature']).split(' '), mac: (s: string) => mac(s, headers, body) };
      };

      const started = Date.now();
      const rotated = await admin<{ id: string; secret: string; previousSecretExpiresAt: string }>([
        'webhook',
        'rotate',
        id,
        '--overlap',
        '1h',
      ]);
      expect(rotated.id).toBe(id);
      expect(rotated.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(rotated.secret).not.toBe(first);
      const until = Date.parse(rotated.previousSecretExpiresAt) - started;
      expect(until).toBeGreaterThan(3_590_000);
      expect(until).toBeLessThan(3_660_000);
      const during = await signatures();
      expect(during.sent).toEqual([during.mac(rotated.secret), during.mac(first)]);

      const human = await atelier(['admin', 'webhook', 'rotate', id, '--overlap', '0']);
      expect(human.code, human.stderr).toBe(0);
      const latest = /new signing secret \(shown once, store it now\): (whsec_\S+)/.exec(human.stdout)?.[1];
      expect(human.stdout).toContain('The old secret is no longer used');
      const after = await signatures();
      expect(after.sent).toEqual([after.mac(latest!)]);
      expect((await admin<{ secret?: string }[]>(['webhook', 'list', '--org', orgId]))[0]).not.toHaveProperty('secret');

      for (const [args, code, message] of [
        [[id, '--overlap', '3x'], 2, '--overlap: expected'],
        [[id, '--overlap', '8d'], 1, 'overlapSeconds must be a whole number of seconds from 0 to 604800'],
        [['we_nope'], 1, 'no webhook endpoint we_nope'],
        [[], 2, 'missing <endpointId>'],
      ] as const) {
        const r = await atelier(['admin', 'webhook', 'rotate', ...args]);
        expect(r.code, r.stderr).toBe(code);
        expect(r.stderr).toContain(message);
      }
    },
    SLOW,
  );

  it(
    'refuses what cannot work: non-http(s) URLs, unknown organizations and event names, missing options',
    async () => {
      for (const [args, code, message] of [
        [['--org', orgId, '--url', 'ftp://example.com/hook'], 1, 'must be http or https'],
        [['--org', orgId, '--url', 'file:///etc/passwd'], 1, 'must be http or https'],
        [['--org', 'nope', '--url', 'https://example.com/hook'], 1, 'no organization nope'],
        [['--org', orgId, '--url', 'https://example.com/hook', '--events', 'Everything!'], 1, 'is not an event type'],
        [['--org', orgId, '--url', 'https://example.com/hook', '--events', ''], 1, 'names no event'],
        [['--org', orgId, '--url', 'https://example.com/hook', '--events', ' , '], 1, 'names no event'],
        [['--org', orgId, '--url', `https://example.com/${'a'.repeat(2100)}`], 1, 'at most 2048 characters'],
        [['--org', orgId], 2, 'webhook add needs --org and --url'],
      ] as const) {
        const r = await atelier(['admin', 'webhook', 'add', ...args]);
        expect(r.code, r.stderr).toBe(code);
        expect(r.stderr).toContain(message);
      }
      const help = await atelier(['admin', 'webhook', 'frobnicate']);
      expect(help.code).toBe(2);
      expect(help.stderr).toContain('webhook add --org ORG_ID --url');
    },
    SLOW,
  );
});
