import type { Migration } from 'kysely/migration';
import * as m0001 from './0001_access.ts';
import * as m0002 from './0002_usage.ts';
import * as m0003 from './0003_brands.ts';
import * as m0004 from './0004_jobs.ts';
import * as m0005 from './0005_assets.ts';
import * as m0007 from './0007_extraction.ts';
import * as m0008 from './0008_brand_dna.ts';
import * as m0009 from './0009_generation.ts';
import * as m0010 from './0010_refinements.ts';
import * as m0011 from './0011_videos.ts';
import * as m0012 from './0012_idempotency.ts';
import * as m0013 from './0013_webhooks.ts';
import * as m0014 from './0014_console.ts';
import * as m0015 from './0015_webhook_rotation.ts';
import * as m0016 from './0016_pending_work.ts';
import * as m0017 from './0017_content_credentials.ts';

/**
 * Every migration, in order. Names sort in the order they run; a released migration never changes.
 * Feature modules add theirs here.
 */
export const migrations: Record<string, Migration> = {
  '0001_access': m0001,
  '0002_usage': m0002,
  '0003_brands': m0003,
  '0004_jobs': m0004,
  '0005_assets': m0005,
  '0007_extraction': m0007,
  '0008_brand_dna': m0008,
  '0009_generation': m0009,
  '0010_refinements': m0010,
  '0011_videos': m0011,
  '0012_idempotency': m0012,
  '0013_webhooks': m0013,
  '0014_console': m0014,
  '0015_webhook_rotation': m0015,
  '0016_pending_work': m0016,
  '0017_content_credentials': m0017,
};
