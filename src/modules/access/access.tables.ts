export interface OrganizationsTable {
  id: string;
  name: string;
  plan_slug: string;
  /** JSON: per-organization overrides of the plan (see usage module). */
  overrides: string;
  /** 0/1: generated files get Content Credentials (C2PA); 1 by default. */
  content_credentials: number;
  created_at: string;
  updated_at: string;
}

export interface UsersTable {
  id: string;
  organization_id: string;
  name: string;
  email: string | null;
  role: string;
  /** 0/1: may use `all_organizations` and other instance-wide reads. */
  platform_admin: number;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  /** Public key id, the `<keyId>` part of `atl_<env>_<keyId>.<secret>`. */
  key_id: string;
  organization_id: string;
  user_id: string;
  name: string;
  env: string;
  /** sha256 of the secret, hex. The secret itself is never stored. */
  secret_hash: string;
  created_at: string;
  updated_at: string;
  expires_at: string | null;
  revoked_at: string | null;
  last_used_at: string | null;
}

/** This module's tables, added to the database type (declaration merging; see schema.ts). */
declare module '../../adapters/db/schema.ts' {
  interface DB {
    organizations: OrganizationsTable;
    users: UsersTable;
    api_keys: ApiKeysTable;
  }
}
