/**
 * The whole relational schema as Kysely sees it. The adapters own no table: each feature module
 * adds its own tables to this interface from its `<feature>.tables.ts` by declaration merging
 *
 *   declare module '../../adapters/db/schema.ts' {
 *     interface DB { brands: BrandsTable }
 *   }
 *
 * so this file imports no module. Every `*.tables.ts` is in the type-check program (tsconfig
 * includes src), so `Kysely<DB>` knows every table wherever it is used; schema.test.ts checks that
 * the tables registered are exactly the tables the migrations make.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the modules' declaration merging (see above)
export interface DB {}
