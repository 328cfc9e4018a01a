import { createHash, randomBytes } from 'node:crypto';
import { ProblemError } from '../../http/problem.js';
import { hashPassword, verifyPassword } from './password.js';
import type { AccountRow, AccountsRepo } from './repo.js';
import { accountRuleErrors } from './rules.js';
import {
  networkOf,
  SIGN_UP_WINDOW_MS,
  THROTTLE_LIMITS,
  THROTTLE_WINDOW_MS,
  type ThrottleCheck,
  type ThrottleStore,
} from './throttle.js';

export const SESSION_TTL_MS = 7 * 24 * 3_600_000;

/** 256-bit random session id; the database keeps only its SHA-256. */
export const newSecretToken = (): string => randomBytes(32).toString('base64url');
export const hashSessionId = (id: string): string => createHash('sha256').update(id).digest('hex');

export interface NewSession {
  /** the cookie value: exists only here and in the browser */
  id: string;
  csrfToken: string;
  account: AccountRow;
}

export const SIGN_IN_FAILED = 'The username or password is incorrect.';

export function accountsService(repo: AccountsRepo, throttle: ThrottleStore, now: () => number) {
  async function openSession(account: AccountRow, replacing: string | undefined): Promise<NewSession> {
    // Fixation: whatever session id the browser brought is dropped; the new one is fresh randomness.
    if (replacing) await repo.deleteSession(hashSessionId(replacing));
    const id = newSecretToken();
    const csrfToken = newSecretToken();
    const at = now();
    // Expired rows are swept here (an indexed delete per sign-in) rather than by a timer.
    await repo.deleteExpiredSessions(at);
    await repo.createSession({
      idHash: hashSessionId(id),
      userId: account.id,
      csrfToken,
      now: at,
      expiresAt: at + SESSION_TTL_MS,
    });
    return { id, csrfToken, account };
  }

  /** Takes a place under every limit, or refuses with 429 and when to try again. */
  async function reserve(checks: ThrottleCheck[], refusal: string): Promise<string> {
    const at = now();
    const reservation = await throttle.reserve(checks, at);
    if (reservation.ok) return reservation.ticket;
    const seconds = Math.max(1, Math.ceil((reservation.retryAt - at) / 1000));
    throw new ProblemError(
      'too_many_attempts',
      `${refusal} Wait ${Math.ceil(seconds / 60)} minute(s) and try again.`,
      { headers: { 'retry-after': String(seconds) } },
    );
  }

  return {
    /**
     * Sign-ups are limited per address (network): a place is taken once the rules pass, so a taken
     * username counts too (it tells whether an account exists).
     */
    async signUp(input: {
      username: string;
      password: string;
      address: string;
      currentSession?: string;
    }): Promise<NewSession> {
      const errors = accountRuleErrors(input.username, input.password);
      if (errors.length > 0) {
        throw new ProblemError('unprocessable', errors.map((e) => `${e.name} ${e.reason}`).join('; '), {
          invalidParams: errors,
        });
      }
      await reserve(
        [
          {
            subject: `signup:${networkOf(input.address)}`,
            limit: THROTTLE_LIMITS.signUp,
            windowMs: SIGN_UP_WINDOW_MS,
          },
        ],
        'Too many accounts were created from your network.',
      );
      if (await repo.usernameTaken(input.username)) {
        throw new ProblemError('conflict', 'That username is taken; choose another one.', {
          invalidParams: [{ in: 'body', name: 'username', reason: 'is taken' }],
        });
      }
      const account = await repo.create({
        username: input.username,
        passwordHash: await hashPassword(input.password),
        now: now(),
      });
      return openSession(account, input.currentSession);
    },

    /**
     * Same message and the same work (one scrypt) for an unknown username and a wrong password.
     * Every attempt takes a place per account and per address before the password is checked, so
     * parallel guesses count; past a limit the check is not even attempted. A success gives the
     * address its place back and clears the account's failures.
     */
    async signIn(input: {
      username: string;
      password: string;
      address: string;
      currentSession?: string;
    }): Promise<NewSession> {
      const accountSubject = `account:${input.username.toLowerCase()}`;
      const addressSubject = `address:${networkOf(input.address)}`;
      const ticket = await reserve(
        [
          { subject: accountSubject, limit: THROTTLE_LIMITS.account, windowMs: THROTTLE_WINDOW_MS },
          { subject: addressSubject, limit: THROTTLE_LIMITS.address, windowMs: THROTTLE_WINDOW_MS },
        ],
        'Too many failed sign-in attempts.',
      );
      const row = await repo.findForSignIn(input.username).catch(async (err: unknown) => {
        // not a failed guess: the database could not answer
        await throttle.release(accountSubject, ticket);
        await throttle.release(addressSubject, ticket);
        throw err;
      });
      const ok = await verifyPassword(input.password, row?.password_hash);
      if (!row || !ok) throw new ProblemError('unauthenticated', SIGN_IN_FAILED);
      await throttle.reset(accountSubject);
      await throttle.release(addressSubject, ticket);
      const { password_hash: _hash, ...account } = row;
      return openSession(account, input.currentSession);
    },

    async signOut(sessionId: string): Promise<void> {
      await repo.deleteSession(hashSessionId(sessionId));
    },

    async sessionFor(sessionId: string) {
      return repo.findSession(hashSessionId(sessionId), now());
    },
  };
}

export type AccountsService = ReturnType<typeof accountsService>;
