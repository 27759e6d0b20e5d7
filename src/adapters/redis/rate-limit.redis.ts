import { Redis } from 'ioredis';
import { type BucketSettings, createMemoryRateLimiter, type RateLimiter } from '../../http/rate-limit.ts';

/**
 * The token bucket of http/rate-limit.ts kept in Redis, so every API process shares one bucket
 * per key. One Lua script makes the read-refill-take step atomic; the key expires once the bucket
 * would be full again. Time comes from the Redis server, so processes need no clock agreement.
 * While Redis cannot answer (down, or slower than `commandTimeoutMs`), each process falls back to
 * its own in-memory bucket for a second at a time: limits become per process for that time rather
 * than every request failing with a 500 or waiting on reconnects.
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
-- as stepBucket: 'at' never moves backwards, so a clock step back cannot refill twice
now = math.max(at, now)
tokens = math.min(burst, tokens + (now - at) / 1000 * rate)
local ok = 0
if tokens >= 1 then tokens = tokens - 1; ok = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return {ok, tostring(tokens)}
`;

export function createRedisRateLimiter(
  url: string,
  s: BucketSettings,
  prefix = 'atelier:rl:',
  commandTimeoutMs = 500,
): RateLimiter {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, commandTimeout: commandTimeoutMs, lazyConnect: false });
  // Connection errors surface through the fallback below; without a listener ioredis prints them.
  redis.on('error', () => {});
  const fallback = createMemoryRateLimiter(s);
  let redisDownUntil = 0;
  redis.defineCommand('atelierTake', { numberOfKeys: 1, lua: SCRIPT });
  const take = (
    redis as unknown as { atelierTake(k: string, r: number, b: number): Promise<[number, string]> }
  ).atelierTake.bind(redis);
  return {
    async take(key) {
      if (Date.now() < redisDownUntil) return fallback.take(key);
      let reply: [number, string];
      try {
        reply = await take(prefix + key, s.perSecond, s.burst);
      } catch {
        redisDownUntil = Date.now() + 1000;
        return fallback.take(key);
      }
      const [ok, tokensText] = reply;
      const tokens = Number(tokensText);
      if (ok === 1) return { ok: true, retryAfter: 0, remaining: Math.floor(tokens) };
      return { ok: false, retryAfter: Math.max(1, Math.ceil((1 - tokens) / s.perSecond)), remaining: 0 };
    },
    async close() {
      await fallback.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
