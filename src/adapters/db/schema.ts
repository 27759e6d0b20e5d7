import type { AccessTables } from '../../modules/access/access.tables.ts';
import type { UsageTables } from '../../modules/usage/usage.tables.ts';
import type { AssetsTables } from '../../modules/assets/assets.tables.ts';
import type { BrandsTables } from '../../modules/brands/brands.tables.ts';
import type { JobsTables } from '../../jobs/jobs.tables.ts';
import type { ExtractionTables } from '../../modules/extraction/extraction.tables.ts';
import type { BrandDnaTables } from '../../modules/brand-dna/brand-dna.tables.ts';
import type { GenerationTables } from '../../modules/generation/generation.tables.ts';
import type { VideoTables } from '../../modules/videos/videos.tables.ts';
import type { IdempotencyTables } from '../../modules/idempotency/idempotency.tables.ts';
import type { WebhooksTables } from '../../modules/webhooks/webhooks.tables.ts';
import type { ConsoleTables } from '../../modules/console/console.tables.ts';

/**
 * The whole relational schema as Kysely sees it: each feature module declares its own tables in
 * `<feature>.tables.ts` and they are joined here.
 */
export interface DB
  extends AccessTables,
    UsageTables,
    AssetsTables,
    BrandsTables,
    JobsTables,
    ExtractionTables,
    BrandDnaTables,
    GenerationTables,
    VideoTables,
    IdempotencyTables,
    WebhooksTables,
    ConsoleTables {}
