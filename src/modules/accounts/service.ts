import { createHash, randomBytes } from 'node:crypto';
import { ProblemError } from '../../http/problem.js';
import { hashPassword, verifyPassword } from './password.js';
import type { AccountRow, AccountsRepo } from './repo.js';
import { accountRuleErrors } from './rules.js';
import { THROTTLE_LIMITS, type LoginThrottleStore } from './throttle.js';

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

export function accountsService(repo: AccountsRepo, throttle: LoginThrottleStore, now: () => number) {
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

  async function checkThrottle(subjects: string[]): Promise<void> {
    const at = now();
    for (const subject of subjects) {
      const limit = subject.startsWith('account:') ? THROTTLE_LIMITS.account : THROTTLE_LIMITS.address;
      const { count, retryAt } = await throttle.failures(subject, at);
      if (count >= limit) {
        const seconds = Math.max(1, Math.ceil((retryAt - at) / 1000));
        throw new ProblemError(
          'too_many_attempts',
          `Too many failed sign-in attempts. Wait ${Math.ceil(seconds / 60)} minute(s) and try again.`,
          { headers: { 'retry-after': String(seconds) } },
        );
      }
    }
  }

  return {
    async signUp(input: {
      username: string;
      password: string;
      currentSession?: string;
    }): Promise<NewSession> {
      const errors = accountRuleErrors(input.username, input.password);
      if (errors.length > 0) {
        throw new ProblemError('unprocessable', errors.map((e) => `${e.name} ${e.reason}`).join('; '), {
          invalidParams: errors,
        });
      }
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
     * Failures count per account and per address; past the limit the check is not even attempted.
     */
    async signIn(input: {
      username: string;
      password: string;
      address: string;
      currentSession?: string;
    }): Promise<NewSession> {
      const accountSubject = `account:${input.username.toLowerCase()}`;
      const addressSubject = `address:${input.address}`;
      await checkThrottle([accountSubject, addressSubject]);
      const row = await repo.findForSignIn(input.username);
      const ok = await verifyPassword(input.password, row?.password_hash);
      if (!row || !ok) {
        const at = now();
        await throttle.recordFailure(accountSubject, at);
        await throttle.recordFailure(addressSubject, at);
        throw new ProblemError('unauthenticated', SIGN_IN_FAILED);
      }
      await throttle.reset(accountSubject);
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
