import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../config.ts';

const load = (env: Record<string, string>) => loadConfig(env, '/tmp');

function settingOf(env: Record<string, string>): string | undefined {
  try {
    load(env);
    return undefined;
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).setting;
  }
}

describe('storage settings', () => {
  it('defaults to the local folder with generated secret and link lifetimes', () => {
    expect(load({}).storage).toEqual({
      s3: undefined,
      signingSecret: undefined,
      uploadLinkTtlSeconds: 900,
      downloadLinkTtlSeconds: 3600,
    });
  });

  it('selects S3 when S3_BUCKET is set, path-style by default only with an endpoint', () => {
    expect(load({ S3_BUCKET: 'assets' }).storage.s3).toEqual({
      endpoint: undefined,
      bucket: 'assets',
      region: 'us-east-1',
      accessKeyId: undefined,
      secretAccessKey: undefined,
      forcePathStyle: false,
      createBucket: false,
    });
    expect(load({ S3_BUCKET: 'assets', S3_CREATE_BUCKET: 'true' }).storage.s3?.createBucket).toBe(true);
    const s3 = load({
      S3_BUCKET: 'assets',
      S3_ENDPOINT: 'http://127.0.0.1:9000',
      S3_REGION: 'eu-west-3',
      S3_ACCESS_KEY_ID: 'id',
      S3_SECRET_ACCESS_KEY: 'secret',
    }).storage.s3;
    expect(s3).toMatchObject({ endpoint: 'http://127.0.0.1:9000', region: 'eu-west-3', forcePathStyle: true });
    expect(
      load({ S3_BUCKET: 'assets', S3_ENDPOINT: 'https://s3.example', S3_FORCE_PATH_STYLE: 'false' }).storage.s3
        ?.forcePathStyle,
    ).toBe(false);
  });

  it('stops the start naming the setting when S3 settings are invalid or partial', () => {
    const cases: [Record<string, string>, string][] = [
      [{ S3_ENDPOINT: 'http://127.0.0.1:9000' }, 'S3_BUCKET'],
      [{ S3_ACCESS_KEY_ID: 'id', S3_SECRET_ACCESS_KEY: 's' }, 'S3_BUCKET'],
      [{ S3_BUCKET: 'Bad_Bucket' }, 'S3_BUCKET'],
      [{ S3_BUCKET: 'ab' }, 'S3_BUCKET'],
      [{ S3_BUCKET: 'assets', S3_ENDPOINT: 'ftp://x' }, 'S3_ENDPOINT'],
      [{ S3_BUCKET: 'assets', S3_ENDPOINT: 'not a url' }, 'S3_ENDPOINT'],
      [{ S3_BUCKET: 'assets', S3_REGION: 'us east' }, 'S3_REGION'],
      [{ S3_BUCKET: 'assets', S3_ACCESS_KEY_ID: 'id' }, 'S3_SECRET_ACCESS_KEY'],
      [{ S3_BUCKET: 'assets', S3_SECRET_ACCESS_KEY: 's' }, 'S3_ACCESS_KEY_ID'],
      [{ S3_BUCKET: 'assets', S3_FORCE_PATH_STYLE: 'maybe' }, 'S3_FORCE_PATH_STYLE'],
      [{ ATELIER_SIGNING_SECRET: 'too-short' }, 'ATELIER_SIGNING_SECRET'],
      [{ ATELIER_UPLOAD_LINK_TTL_SECONDS: '10' }, 'ATELIER_UPLOAD_LINK_TTL_SECONDS'],
      [{ ATELIER_DOWNLOAD_LINK_TTL_SECONDS: '999999' }, 'ATELIER_DOWNLOAD_LINK_TTL_SECONDS'],
    ];
    for (const [env, setting] of cases) expect(settingOf(env), JSON.stringify(env)).toBe(setting);
  });

  it('never prints the secret access key or signing secret in an error', () => {
    const message = (env: Record<string, string>) => {
      try {
        load(env);
      } catch (err) {
        return String(err);
      }
      throw new Error('expected a ConfigError');
    };
    expect(message({ S3_BUCKET: 'assets', S3_SECRET_ACCESS_KEY: 'very-secret-value' })).not.toContain('very-secret');
    expect(message({ ATELIER_SIGNING_SECRET: 'tiny-secret' })).not.toContain('tiny-secret');
  });
});
