export interface UserCredentialsTable {
  user_id: string;
  /** `scrypt$N$r$p$salt$hash` (base64url salt and hash), see passwords.ts. */
  password_hash: string;
  created_at: string;
  updated_at: string;
}

export interface UserInvitesTable {
  /** sha256 (hex) of the one-time token; the token itself is never stored. */
  token_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface ConsoleSessionsTable {
  /** sha256 (hex) of the cookie's session id. */
  id_hash: string;
  user_id: string;
  csrf_token: string;
  created_at: string;
  expires_at: string;
}

export interface LoginFailuresTable {
  id: string;
  /** `email:<lower-cased email>` or `ip:<address>`. */
  bucket: string;
  at: string;
}

/** This module's tables, added to the database type (declaration merging; see schema.ts). */
declare module '../../adapters/db/schema.ts' {
  interface DB {
    user_credentials: UserCredentialsTable;
    user_invites: UserInvitesTable;
    console_sessions: ConsoleSessionsTable;
    login_failures: LoginFailuresTable;
  }
}
