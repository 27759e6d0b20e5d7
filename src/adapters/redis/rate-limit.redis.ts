import { Redis } from 'ioredis';
import { type BucketSettings, createMemoryRateLimiter, type RateLimiter } from '../rate-limit/rate-limit.ts';

/**
 * The token bucket of adapters/rate-limit/rate-limit.ts kept in Redis, so every API process shares
 * one bucket per key. One Lua script makes the read-refill-take step atomic; the key expires once
 * the bucket would be full again. Time comes from the Redis server, so processes need no clock
 * agreement. While Redis cannot answer (down, or slower than `commandTimeoutMs`), each process falls
 * back to its own in-memory bucket for a second at a time: limits become per process for that time
 * rather than every request failing with a 500 or waiting on reconnects.
 */
const SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local force = ARGV[4] == '1'
local s = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(s[1])
local at = tonumber(s[2])
if tokens == nil then tokens = burst; at = now end
-- as stepBucket: 'at' never moves backwards, so a clock step back cannot refill twice
now = math.max(at, now)
tokens = math.min(burst, tokens + (now - at) / 1000 * rate)
local ok = 0
if tokens >= cost then ok = 1 end
if ok == 1 or force then tokens = math.max(-burst, tokens - cost) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil(2 * burst / rate * 1000) + 1000)
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
    redis as unknown as {
      atelierTake(k: string, r: number, b: number, cost: number, force: string): Promise<[number, string]>;
    }
  ).atelierTake.bind(redis);
  return {
    async take(key, cost = 1) {
      if (Date.now() < redisDownUntil) return fallback.take(key, cost);
      let reply: [number, string];
      try {
        reply = await take(prefix + key, s.perSecond, s.burst, cost, '0');
      } catch {
        redisDownUntil = Date.now() + 1000;
        return fallback.take(key, cost);
      }
      const [ok, tokensText] = reply;
      const tokens = Number(tokensText);
      if (ok === 1) return { ok: true, retryAfter: 0, remaining: Math.max(0, Math.floor(tokens)) };
      return { ok: false, retryAfter: Math.max(1, Math.ceil((cost - tokens) / s.perSecond)), remaining: 0 };
    },
    async charge(key, cost) {
      if (Date.now() < redisDownUntil) return fallback.charge(key, cost);
      try {
        await take(prefix + key, s.perSecond, s.burst, cost, '1');
      } catch {
        redisDownUntil = Date.now() + 1000;
        await fallback.charge(key, cost);
      }
    },
    async close() {
      await fallback.close();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
