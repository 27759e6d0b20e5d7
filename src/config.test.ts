import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, redact } from './config.ts';

const cwd = '/srv/atelier';
const load = (env: Record<string, string>) => loadConfig(env, cwd);

function settingError(env: Record<string, string>): ConfigError {
  try {
    load(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`expected ${JSON.stringify(env)} to be refused`);
}

describe('loadConfig', () => {
  it('gives a working embedded setup with no settings at all', () => {
    const c = load({});
    expect(c).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      dataDir: path.resolve(cwd, 'data'),
      databaseUrl: undefined,
      redisUrl: undefined,
      env: 'dev',
      publicUrl: 'http://localhost:8080',
      allowPrivateFetch: false,
      logLevel: 'info',
      rateLimit: { perSecond: 20, burst: 60 },
      bodyLimit: 1_048_576,
    });
    expect(path.isAbsolute(c.plansFile)).toBe(true);
    expect(c.plansFile.endsWith(path.join('config', 'plans.json'))).toBe(true);
  });

  it('reads every setting, trimming whitespace and treating blank as unset', () => {
    const c = load({
      PORT: ' 9000 ',
      HOST: '127.0.0.1',
      ATELIER_DATA_DIR: 'var/atelier',
      DATABASE_URL: 'postgresql://app:pw@db:5432/atelier',
      REDIS_URL: 'rediss://cache:6380',
      ATELIER_ENV: 'prod',
      ATELIER_PUBLIC_URL: 'https://api.example.com/',
      ATELIER_ALLOW_PRIVATE_FETCH: 'YES',
      LOG_LEVEL: 'warn',
      ATELIER_PLANS_FILE: 'plans/custom.json',
      ATELIER_RATE_LIMIT_PER_SECOND: '5',
      ATELIER_RATE_LIMIT_BURST: '10',
      ATELIER_BODY_LIMIT: '2048',
    });
    // toMatchObject: other modules add their own settings (and their own tests of them).
    expect(c).toMatchObject({
      port: 9000,
      host: '127.0.0.1',
      dataDir: path.resolve(cwd, 'var/atelier'),
      databaseUrl: 'postgresql://app:pw@db:5432/atelier',
      redisUrl: 'rediss://cache:6380',
      env: 'prod',
      publicUrl: 'https://api.example.com',
      allowPrivateFetch: true,
      logLevel: 'warn',
      plansFile: path.resolve(cwd, 'plans/custom.json'),
      rateLimit: { perSecond: 5, burst: 10 },
      bodyLimit: 2048,
    });
    expect(load({ PORT: '', ATELIER_ENV: '  ' })).toMatchObject({ port: 8080, env: 'dev' });
    expect(load({ PORT: '9001' }).publicUrl).toBe('http://localhost:9001');
  });

  it('chooses the local image engine by default and a provider with its settings', () => {
    expect(load({}).imageEngine).toEqual({ provider: 'local' });
    expect(load({}).imageLongSide).toBe(1024);
    expect(
      load({
        IMAGE_ENGINE: 'openai-images',
        IMAGE_API_KEY: 'sk-test',
        IMAGE_MODEL: 'gpt-image-1',
        IMAGE_TIMEOUT_SECONDS: '60',
      }).imageEngine,
    ).toMatchObject({ provider: 'openai-images', apiKey: 'sk-test', model: 'gpt-image-1', timeoutMs: 60_000 });
  });

  it('bounds slow clients, the headers never longer than the request', () => {
    expect(load({}).httpTimeouts).toEqual({ headersMs: 30_000, requestMs: 900_000, bodyMs: 60_000 });
    expect(
      load({ ATELIER_HEADERS_TIMEOUT_SECONDS: '120', ATELIER_REQUEST_TIMEOUT_SECONDS: '60' }).httpTimeouts,
    ).toEqual({
      headersMs: 60_000,
      requestMs: 60_000,
      bodyMs: 60_000,
    });
  });

  it('trusts no proxy unless told which', () => {
    expect(load({}).trustProxy).toEqual([]);
    expect(load({ ATELIER_TRUST_PROXY: 'false' }).trustProxy).toEqual([]);
    expect(load({ ATELIER_TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1' }).trustProxy).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
    ]);
  });

  it('reads the video engine and the models it renders (every model but video-model-8 by default)', () => {
    expect(load({}).video).toMatchObject({ engine: { provider: 'local' } });
    const runway = load({ VIDEO_ENGINE: 'runway', VIDEO_API_KEY: 'rw', VIDEO_TIMEOUT_SECONDS: '120' }).video;
    expect(runway.engine).toMatchObject({ provider: 'runway', apiKey: 'rw', timeoutMs: 120_000 });
    expect(runway.models).toHaveLength(9);
    expect(runway.models).not.toContain('video-model-8');
    expect(
      load({ VIDEO_ENGINE: 'fal', VIDEO_API_KEY: 'k', VIDEO_ENGINE_MODELS: 'video-model-1, optimized' }).video.models,
    ).toEqual(['video-model-1', 'optimized']);
  });

  it.each([
    [{ PORT: 'abc' }, 'PORT', /whole number.*"abc"/],
    [{ PORT: '8080.5' }, 'PORT', /whole number/],
    [{ PORT: '-1' }, 'PORT', /whole number/],
    [{ PORT: '65536' }, 'PORT', /0\.\.65535/],
    [{ ATELIER_ENV: 'qa' }, 'ATELIER_ENV', /one of dev, staging, prod, got "qa"/],
    [{ ATELIER_ENV: 'Prod' }, 'ATELIER_ENV', /one of dev, staging, prod/],
    [{ LOG_LEVEL: 'verbose' }, 'LOG_LEVEL', /one of fatal/],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL', /postgres: or postgresql: URL, got "mysql:"/],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL', /not a valid URL/],
    [{ REDIS_URL: 'http://cache' }, 'REDIS_URL', /redis: or rediss:/],
    [{ ATELIER_PUBLIC_URL: 'ftp://x' }, 'ATELIER_PUBLIC_URL', /http: or https:/],
    [{ ATELIER_ALLOW_PRIVATE_FETCH: 'maybe' }, 'ATELIER_ALLOW_PRIVATE_FETCH', /true\/false/],
    [{ ATELIER_RATE_LIMIT_PER_SECOND: '0' }, 'ATELIER_RATE_LIMIT_PER_SECOND', /1\.\.1000000/],
    [{ ATELIER_RATE_LIMIT_BURST: '1e3' }, 'ATELIER_RATE_LIMIT_BURST', /whole number/],
    [{ ATELIER_BODY_LIMIT: '10' }, 'ATELIER_BODY_LIMIT', /1024\.\./],
    [{ ATELIER_IMAGE_LONG_SIDE: '100' }, 'ATELIER_IMAGE_LONG_SIDE', /256\.\.4096/],
    [{ IMAGE_ENGINE: 'midjourney' }, 'IMAGE_ENGINE', /one of local, openai-images, fal, replicate, comfyui/],
    [{ IMAGE_ENGINE: 'fal' }, 'IMAGE_API_KEY', /required when IMAGE_ENGINE=fal/],
    [{ IMAGE_ENGINE: 'replicate', IMAGE_API_KEY: 'k', IMAGE_EXTRA_INPUT: '[1]' }, 'IMAGE_EXTRA_INPUT', /JSON object/],
    [{ IMAGE_API_BASE_URL: 'file:///x' }, 'IMAGE_API_BASE_URL', /http: or https:/],
    [{ ATELIER_TRUST_PROXY: '10.0.0.0/33' }, 'ATELIER_TRUST_PROXY', /CIDR/],
    [{ ATELIER_TRUST_PROXY: 'true' }, 'ATELIER_TRUST_PROXY', /IP addresses/],
    [{ VIDEO_ENGINE: 'sora' }, 'VIDEO_ENGINE', /one of local, runway, luma, fal, replicate/],
    [{ VIDEO_ENGINE: 'runway' }, 'VIDEO_API_KEY', /required/],
    [{ VIDEO_ENGINE_MODELS: 'video-model-1,video-model-11' }, 'VIDEO_ENGINE_MODELS', /unknown model "video-model-11"/],
    [{ VIDEO_TIMEOUT_SECONDS: '1' }, 'VIDEO_TIMEOUT_SECONDS', /10\.\.7200/],
  ])('refuses %j naming the setting', (env, setting, message) => {
    const err = settingError(env);
    expect(err.setting).toBe(setting);
    expect(err.message).toMatch(new RegExp(`^Invalid setting ${setting}: `));
    expect(err.message).toMatch(message);
  });

  it('serves no metrics unless told where: a listener of its own (loopback by default) or a token', () => {
    expect(load({}).metrics).toEqual({ port: undefined, host: '127.0.0.1', token: undefined });
    expect(
      load({ ATELIER_METRICS_PORT: '9464', ATELIER_METRICS_HOST: '0.0.0.0', ATELIER_METRICS_TOKEN: 'a'.repeat(16) })
        .metrics,
    ).toEqual({ port: 9464, host: '0.0.0.0', token: 'a'.repeat(16) });
    expect(settingError({ ATELIER_METRICS_PORT: '0' }).setting).toBe('ATELIER_METRICS_PORT');
    expect(settingError({ PORT: '9000', ATELIER_METRICS_PORT: '9000' }).message).toMatch(/must differ from PORT/);
    expect(settingError({ ATELIER_METRICS_TOKEN: 'short' }).message).toMatch(/at least 16 characters/);
  });

  it('never prints a password from a connection URL', () => {
    const err = settingError({ DATABASE_URL: 'mysql://app:s3cret@db/x' });
    expect(err.message).not.toContain('s3cret');
    const bad = settingError({ DATABASE_URL: 'postgres://app:s3cret@db:99999/x' });
    expect(bad.message).not.toContain('s3cret');
    expect(redact('postgres://app:s3cret@db/x')).toBe('postgres://app:***@db/x');
    expect(redact('postgres://app:s3cret@db:99999/x')).not.toContain('s3cret');
  });
  it('Content Credentials: the chain and key as files or PEM text, both or neither; the key never echoed', () => {
    expect(load({}).c2pa).toEqual({});
    const cert = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----';
    const key = '-----BEGIN PRIVATE KEY-----\nSECRETKEYTEXT\n-----END PRIVATE KEY-----';
    expect(load({ ATELIER_C2PA_CERT: cert, ATELIER_C2PA_KEY: key }).c2pa).toEqual({ certPem: cert, keyPem: key });
    const here = import.meta.filename;
    expect(loadConfig({ ATELIER_C2PA_CERT_FILE: here, ATELIER_C2PA_KEY_FILE: here }, cwd).c2pa).toEqual({
      certFile: here,
      keyFile: here,
    });
    expect(settingError({ ATELIER_C2PA_CERT: cert }).setting).toBe('ATELIER_C2PA_KEY_FILE');
    expect(settingError({ ATELIER_C2PA_KEY_FILE: here }).setting).toBe('ATELIER_C2PA_CERT_FILE');
    expect(settingError({ ATELIER_C2PA_CERT_FILE: '/nowhere/chain.pem', ATELIER_C2PA_KEY: key }).setting).toBe(
      'ATELIER_C2PA_CERT_FILE',
    );
    const bad = settingError({ ATELIER_C2PA_CERT: cert, ATELIER_C2PA_KEY: 'SECRETKEYTEXT' });
    expect(bad.setting).toBe('ATELIER_C2PA_KEY');
    expect(bad.message).not.toContain('SECRETKEYTEXT');
  });
});
