import type { AccessTables } from '../../modules/access/access.tables.ts';

/**
 * The whole relational schema as Kysely sees it: each feature module declares its own tables in
 * `<feature>.tables.ts` and they are joined here.
 */
export interface DB extends AccessTables {}
