import { hash, randomBytes } from 'node:crypto';
import type { Clock } from '../../clock.ts';
import { fromBool, fromJson } from '../../adapters/db/columns.ts';
import { AppError, badRequest } from '../../http/errors.ts';
import type { OrgOverrides } from '../usage/plans.ts';
import type { AccessRepo } from '../access/access.repo.ts';
import { AccessError } from '../access/access.errors.ts';
import type { Principal } from '../access/access.service.ts';
import { isRole } from '../access/access.roles.ts';
import type { ConsoleRepo, SessionLookup } from './console.repo.ts';
import { createPasswords, type Passwords, passwordProblem } from './passwords.ts';

/** Lifetime of a console session (fixed from sign-in, not sliding). */
export const SESSION_TTL_MS = 12 * 3_600_000;
/** Lifetime of an invite link. */
export const INVITE_TTL_MS = 72 * 3_600_000;
/** Failed sign-ins counted per email and per client address within this window. */
export const THROTTLE_WINDOW_MS = 15 * 60_000;
/** Failures one address may make on one account in the window (then 429 for that address only). */
export const MAX_FAILURES_PER_EMAIL = 5;
export const MAX_FAILURES_PER_IP = 20;
/**
 * Failures on one account from every address before each further attempt waits: 2^(n − this)
 * seconds after the latest failure, at most ACCOUNT_BACKOFF_MAX_S. A backoff, not a lock: guessing
 * from many addresses slows to a crawl while the owner can still sign in after a short wait.
 */
export const ACCOUNT_BACKOFF_AFTER = 10;
export const ACCOUNT_BACKOFF_MAX_S = 300;

/** Seconds an account must wait after its latest failure, given its failures in the window. Pure. */
export function accountBackoffSeconds(failures: number): number {
  if (failures < ACCOUNT_BACKOFF_AFTER) return 0;
  return Math.min(ACCOUNT_BACKOFF_MAX_S, 2 ** (failures - ACCOUNT_BACKOFF_AFTER));
}

export const SESSION_COOKIE = 'atelier_session';

const sha256 = (value: string) => hash('sha256', value, 'hex');
const randomToken = () => randomBytes(32).toString('base64url');
/** Session ids and invite tokens are 32 random bytes in base64url (43 characters). */
const TOKEN_RE = /^[A-Za-z0-9_-]{43}$/;

export interface ConsoleUser {
  id: string;
  name: string;
  email: string | null;
  role: string;
  organizationId: string;
  organizationName: string;
}

/** What sign-in, invite acceptance and `/me` answer: the user and the session's CSRF token. */
export interface SessionView {
  user: ConsoleUser;
  csrfToken: string;
}

export interface ConsoleSession {
  principal: Principal;
  view: SessionView;
}

const toView = (l: SessionLookup): SessionView => ({
  user: {
    id: l.user.id,
    name: l.user.name,
    email: l.user.email,
    role: l.user.role,
    organizationId: l.org.id,
    organizationName: l.org.name,
  },
  csrfToken: l.session.csrf_token,
});

export interface ConsoleServiceDeps {
  repo: ConsoleRepo;
  access: Pick<AccessRepo, 'getUser'>;
  clock: Clock;
  /** The API's public base URL: invite links point at its console. */
  config: { publicUrl: string };
  /** Password hashing (scrypt at PASSWORD_COST unless told). */
  passwords?: Passwords;
}

/** Console sign-in: passwords, invites, cookie sessions and sign-in throttling. */
export function createConsoleService({
  repo,
  access,
  clock,
  config,
  passwords = createPasswords(),
}: ConsoleServiceDeps) {
  const now = () => clock().toISOString();

  const invalidCredentials = () => new AppError(401, 'INVALID_CREDENTIALS', 'Wrong email or password');

  function tooMany(oldest: string | null): AppError {
    const until = (oldest ? Date.parse(oldest) : clock().getTime()) + THROTTLE_WINDOW_MS;
    return tooManyFor(Math.ceil((until - clock().getTime()) / 1000));
  }

  function tooManyFor(seconds: number): AppError {
    const retryAfter = Math.max(1, seconds);
    return new AppError(
      429,
      'TOO_MANY_ATTEMPTS',
      'Too many failed sign-in attempts; try again later',
      { retryAfterSeconds: retryAfter },
      { 'retry-after': String(retryAfter) },
    );
  }

  async function startSession(userId: string): Promise<{ sessionId: string; view: SessionView }> {
    const sessionId = randomToken();
    const t = clock();
    await repo.insertSession({
      id_hash: sha256(sessionId),
      user_id: userId,
      csrf_token: randomToken(),
      created_at: t.toISOString(),
      expires_at: new Date(t.getTime() + SESSION_TTL_MS).toISOString(),
    });
    const found = await repo.lookupSession(sha256(sessionId));
    if (!found) throw new Error('session vanished right after it was created');
    return { sessionId, view: toView(found) };
  }

  /** The user must have an email (their sign-in name) that no other user with a password has. */
  async function checkLoginName(userId: string) {
    const user = await access.getUser(userId);
    if (!user) throw new AccessError(`no user ${userId}`);
    if (!user.email) throw new AccessError(`user ${userId} has no email: console sign-in needs one`);
    if (await repo.emailTakenByOther(user.email, userId)) {
      throw new AccessError(`another user already signs in with ${user.email}`);
    }
    return user;
  }

  return {
    /**
     * Email + password → a new session; throttled per account and address (a lock for that
     * address), per address, and per account from every address (a growing wait, not a lock).
     */
    async login(email: string, password: string, ip: string) {
      const account = email.trim().toLowerCase();
      const emailBucket = `email:${account}`;
      const pairBucket = `email-ip:${account}|${ip}`;
      const ipBucket = `ip:${ip}`;
      const since = new Date(clock().getTime() - THROTTLE_WINDOW_MS).toISOString();
      const byPair = await repo.failures(pairBucket, since);
      if (byPair.count >= MAX_FAILURES_PER_EMAIL) throw tooMany(byPair.oldest);
      const byIp = await repo.failures(ipBucket, since);
      if (byIp.count >= MAX_FAILURES_PER_IP) throw tooMany(byIp.oldest);
      const byEmail = await repo.failures(emailBucket, since);
      const wait = accountBackoffSeconds(byEmail.count);
      if (wait > 0 && byEmail.newest) {
        const left = Math.ceil((Date.parse(byEmail.newest) + wait * 1000 - clock().getTime()) / 1000);
        if (left > 0) throw tooManyFor(left);
      }
      const found = await repo.findLogin(email.trim());
      // Unknown emails pay the same scrypt as known ones.
      const ok = await passwords.verify(password, found?.password_hash ?? (await passwords.dummy()));
      if (!found || !ok) {
        await repo.recordFailure([emailBucket, pairBucket, ipBucket], now());
        throw invalidCredentials();
      }
      await repo.clearFailures(emailBucket);
      await repo.clearFailures(pairBucket);
      return startSession(found.user_id);
    },

    async logout(sessionId: string) {
      if (TOKEN_RE.test(sessionId)) await repo.deleteSession(sha256(sessionId));
    },

    /** The session of a cookie value with its live principal, or null (unknown, expired, bad role). */
    async authenticate(sessionId: string): Promise<ConsoleSession | null> {
      if (!TOKEN_RE.test(sessionId)) return null;
      const found = await repo.lookupSession(sha256(sessionId));
      if (!found || found.session.expires_at <= now() || !isRole(found.user.role)) return null;
      return {
        principal: {
          apiKeyId: `user:${found.user.id}`,
          keyId: '',
          userId: found.user.id,
          role: found.user.role,
          platformAdmin: fromBool(found.user.platform_admin),
          org: {
            id: found.org.id,
            name: found.org.name,
            planSlug: found.org.plan_slug,
            overrides: fromJson<OrgOverrides>(found.org.overrides, {}),
          },
          via: 'session',
        },
        view: toView(found),
      };
    },

    /** Sets the password of an invited user and signs them in; the invite is used up. */
    async acceptInvite(token: string, password: string) {
      const problem = passwordProblem(password);
      if (problem)
        throw badRequest(`body.password ${problem}`, { fields: [{ field: 'body.password', message: problem }] });
      const userId = TOKEN_RE.test(token) ? await repo.consumeInvite(sha256(token), now()) : undefined;
      if (!userId) {
        throw badRequest(
          'This invite link is unknown, already used or expired; ask for a new one',
          undefined,
          'INVALID_INVITE',
        );
      }
      try {
        await checkLoginName(userId);
      } catch (err) {
        if (err instanceof AccessError) throw badRequest(err.message, undefined, 'INVALID_INVITE');
        throw err;
      }
      await repo.setPassword(userId, await passwords.hash(password), now());
      return startSession(userId);
    },

    /** Operator: a new one-time invite link (older links of the user stop working). */
    async createInvite(userId: string): Promise<{ url: string; token: string; expiresAt: string }> {
      await checkLoginName(userId);
      const token = randomToken();
      const t = clock();
      const expiresAt = new Date(t.getTime() + INVITE_TTL_MS).toISOString();
      await repo.replaceInvites(userId, sha256(token), t.toISOString(), expiresAt);
      return { url: `${config.publicUrl}/console/#/invite/${token}`, token, expiresAt };
    },

    /** The users of `userIds` who have a password (the others are still invited). */
    async withPassword(userIds: string[]): Promise<Set<string>> {
      return repo.withPassword(userIds);
    },

    /** Operator: sets a password directly (local setups); signs the user out everywhere. */
    async setPassword(userId: string, password: string): Promise<void> {
      const problem = passwordProblem(password);
      if (problem) throw new AccessError(`password ${problem}`);
      await checkLoginName(userId);
      await repo.setPassword(userId, await passwords.hash(password), now());
    },

    /** Expired sessions, used or expired invites and old failure records. */
    async purgeExpired() {
      return repo.purge(now(), new Date(clock().getTime() - THROTTLE_WINDOW_MS).toISOString());
    },
  };
}

export type ConsoleService = ReturnType<typeof createConsoleService>;
