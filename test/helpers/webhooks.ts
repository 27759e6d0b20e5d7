import { createHmac, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';

/**
 * Receiver-side check of a Standard Webhooks delivery with one secret, written from the spec (not
 * with the server's code): a `v1,` signature among the space-separated ones matches, and the
 * timestamp is within 5 minutes of `nowSeconds`.
 */
export function verifiesWebhook(
  secret: string,
  h: http.IncomingHttpHeaders,
  body: string,
  nowSeconds = Date.now() / 1000,
): boolean {
  const id = String(h['webhook-id'] ?? '');
  const ts = String(h['webhook-timestamp'] ?? '');
  const sigs = String(h['webhook-signature'] ?? '');
  if (!id || !/^\d+$/.test(ts) || !sigs) return false;
  if (Math.abs(nowSeconds - Number(ts)) > 300) return false;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const want = createHmac('sha256', key).update(`${id}.${ts}.${body}`).digest();
  return sigs.split(' ').some((s) => {
    const [v, b64] = s.split(',');
    const got = Buffer.from(b64 ?? '', 'base64');
    return v === 'v1' && got.length === want.length && timingSafeEqual(got, want);
  });
}
