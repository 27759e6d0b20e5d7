import { Redis } from 'ioredis';
import type { BucketSettings, RateLimiter } from '../../http/rate-limit.ts';

/**
 * The token bucket of http/rate-limit.ts kept in Redis, so every API process shares one bucket
 * per key. One Lua script makes the read-refill-take step atomic; the key expires once the bucket
 * would be full again. Time comes from the Redis server, so processes need no clock agreement.
 */
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local s = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(s[1])
local at = tonumber(s[2])
if tokens == nil then tokens = burst; at = now end
local elapsed = math.max(0, now - at) / 1000
tokens = math.min(burst, tokens + elapsed * rate)
local ok = 0
if tokens >= 1 then tokens = tokens - 1; ok = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return {ok, tostring(tokens)}
`;

export function createRedisRateLimiter(url: string, s: BucketSettings, prefix = 'atelier:rl:'): RateLimiter {
  const redis = new Redis(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
  redis.defineCommand('atelierTake', { numberOfKeys: 1, lua: SCRIPT });
  const take = (
    redis as unknown as { atelierTake(k: string, r: number, b: number): Promise<[number, string]> }
  ).atelierTake.bind(redis);
  return {
    async take(key) {
      const [ok, tokensText] = await take(prefix + key, s.perSecond, s.burst);
      const tokens = Number(tokensText);
      if (ok === 1) return { ok: true, retryAfter: 0, remaining: Math.floor(tokens) };
      return { ok: false, retryAfter: Math.max(1, Math.ceil((1 - tokens) / s.perSecond)), remaining: 0 };
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
