import type { Kysely } from 'kysely';
import type { Database } from '../../db/types.js';
import { writeTransaction } from '../../db/write-transaction.js';
import { eventOf } from '../events/define.js';
import { emit } from '../events/emit.js';
import type { Subscription } from '../keys/tiers.js';
import { ACCOUNT_CREATED, tierEvent } from './events.js';

export interface AccountRow {
  id: number;
  username: string;
  subscription: Subscription;
  is_partner: number;
}

export interface SessionRow extends AccountRow {
  csrf_token: string;
}

const ACCOUNT_COLUMNS = ['id', 'username', 'subscription', 'is_partner'] as const;

export function accountsRepo(db: Kysely<Database>) {
  return {
    /** Case-insensitive lookup: `Nova` and `nova` are the same account. */
    findForSignIn(username: string): Promise<(AccountRow & { password_hash: string | null }) | undefined> {
      return db
        .selectFrom('users')
        .select([...ACCOUNT_COLUMNS, 'password_hash'])
        .where((eb) => eb(eb.fn('lower', ['username']), '=', username.toLowerCase()))
        .executeTakeFirst();
    },

    async usernameTaken(username: string): Promise<boolean> {
      const row = await db
        .selectFrom('users')
        .select('id')
        .where((eb) => eb(eb.fn('lower', ['username']), '=', username.toLowerCase()))
        .executeTakeFirst();
      return row !== undefined;
    },

    create(input: { username: string; passwordHash: string; now: number }): Promise<AccountRow> {
      return writeTransaction(db, async (trx) => {
        const account = await trx
          .insertInto('users')
          .values({
            username: input.username,
            avatar: '/avatars/default.png',
            password_hash: input.passwordHash,
            joined_at: input.now,
          })
          .returning(ACCOUNT_COLUMNS)
          .executeTakeFirstOrThrow();
        const { id, username } = account;
        await emit(trx, [eventOf(ACCOUNT_CREATED, { user_id: id, username }, { userId: id })], input.now);
        return account;
      });
    },

    async update(
      id: number,
      changes: Partial<{ subscription: Subscription; is_partner: number; password_hash: string }>,
    ): Promise<boolean> {
      return writeTransaction(db, async (trx) => {
        const account = await trx
          .updateTable('users')
          .set(changes)
          .where('id', '=', id)
          .returning(ACCOUNT_COLUMNS)
          .executeTakeFirst();
        // a plan change is told; a password change is not anyone else's business
        if (account && (changes.subscription !== undefined || changes.is_partner !== undefined))
          await emit(trx, [tierEvent(account)], Date.now());
        return account !== undefined;
      });
    },

    async createSession(session: {
      idHash: string;
      userId: number;
      csrfToken: string;
      now: number;
      expiresAt: number;
    }): Promise<void> {
      await db
        .insertInto('sessions')
        .values({
          id_hash: session.idHash,
          user_id: session.userId,
          csrf_token: session.csrfToken,
          created_at: session.now,
          expires_at: session.expiresAt,
        })
        .execute();
    },

    /** The live session and its account, read on every portal request (plan changes show at once). */
    findSession(idHash: string, now: number): Promise<SessionRow | undefined> {
      return db
        .selectFrom('sessions as s')
        .innerJoin('users as u', 'u.id', 's.user_id')
        .select(['u.id', 'u.username', 'u.subscription', 'u.is_partner', 's.csrf_token'])
        .where('s.id_hash', '=', idHash)
        .where('s.expires_at', '>', now)
        .executeTakeFirst();
    },

    async deleteSession(idHash: string): Promise<void> {
      await db.deleteFrom('sessions').where('id_hash', '=', idHash).execute();
    },

    async deleteExpiredSessions(now: number): Promise<void> {
      await db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
    },
  };
}

export type AccountsRepo = ReturnType<typeof accountsRepo>;
