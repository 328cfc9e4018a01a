import { sql, type Selectable } from 'kysely';
import type { Db, Dialect } from '../../db/connect.js';
import type { EconomyEntriesTable, EconomyTransactionsTable } from '../../db/types.js';
import { groupCommit } from '../../db/group-commit.js';
import { writeTransaction } from '../../db/write-transaction.js';
import type { Reward } from '../../engines/ledger.js';
import { eventOf } from '../events/define.js';
import { emitEvents } from '../events/outbox.js';
import { GRANT_CREATED } from './events.js';
import { ensureAccounts, lockAccounts, mintOf, postAll, type Executor } from './postings.js';
import {
  writeTransfers,
  type QueuedTransfer,
  type TransferOutcome,
  type TransferRequest,
} from './transfers.js';

/**
 * The economy's SQL: balances, history and the audit are read here; movements are written through
 * postings.ts (the ledger's rules) and transfers.ts (a batch of transfers).
 */
type TransactionRow = Selectable<EconomyTransactionsTable>;

export type HistoryRow = Pick<
  Selectable<EconomyEntriesTable>,
  'id' | 'transaction_id' | 'amount' | 'balance_after' | 'created_at'
> &
  Pick<TransactionRow, 'kind' | 'from_user_id' | 'to_user_id' | 'note' | 'reason'>;

export interface AuditReport {
  ok: boolean;
  accounts: number;
  transactions: number;
  entries: number;
  /** the sum of every entry: 0 in a sound ledger */
  sum: number;
  /** movements whose legs do not sum to zero or that have fewer than two */
  unbalanced: number[];
  /** accounts whose balance is not the sum of their entries */
  mismatched: { account_id: number; balance: number; entries: number }[];
  /** user accounts below zero */
  negative: number[];
}

/**
 * Mints rewards inside the caller's transaction (the ingest batch that recorded the wins and
 * unlocks), so an event and its coins are written together or not at all.
 */
export async function mintRewards(
  trx: Executor,
  dialect: Dialect,
  rewards: Reward[],
  at: number,
): Promise<void> {
  if (rewards.length === 0) return;
  const userIds = [...new Set(rewards.map((r) => r.userId))].sort((a, b) => a - b);
  await ensureAccounts(trx, userIds, at);
  const accounts = await lockAccounts(trx, dialect, userIds, true);
  const issuance = accounts.find((a) => a.user_id === null);
  if (!issuance) throw new Error('the issuance account is missing');
  const accountOf = new Map(accounts.map((a) => [a.user_id, a]));
  await postAll(
    trx,
    rewards.map((reward) => {
      const account = accountOf.get(reward.userId);
      if (!account) throw new Error(`no account for user ${reward.userId}`);
      return mintOf(issuance, account, { kind: 'reward', ...reward }, at);
    }),
  );
}

/** The most transfers one transaction writes (group commit). */
export const TRANSFERS_PER_COMMIT = 64;

export function economyRepo(db: Db, options: { transfersPerCommit?: number } = {}) {
  const k = db.kysely;
  const writeTransfer = groupCommit<QueuedTransfer, TransferOutcome>({
    maxBatch: options.transfersPerCommit ?? TRANSFERS_PER_COMMIT,
    write: (take) => writeTransaction(k, (trx) => writeTransfers(trx, db.dialect, take())),
  });
  return {
    async balance(userId: number): Promise<{ balance: number; updated_at: number } | undefined> {
      return k
        .selectFrom('economy_accounts')
        .select(['balance', 'updated_at'])
        .where('user_id', '=', userId)
        .executeTakeFirst();
    },

    /** The user's entries, newest first, and how many there are. */
    async history(
      userId: number,
      limit: number,
      offset: number,
    ): Promise<{ rows: HistoryRow[]; total: number }> {
      const account = await k
        .selectFrom('economy_accounts')
        .select('id')
        .where('user_id', '=', userId)
        .executeTakeFirst();
      if (!account) return { rows: [], total: 0 };
      const [rows, count] = await Promise.all([
        k
          .selectFrom('economy_entries as e')
          .innerJoin('economy_transactions as t', 't.id', 'e.transaction_id')
          .select([
            'e.id',
            'e.transaction_id',
            't.kind',
            'e.amount',
            'e.balance_after',
            't.from_user_id',
            't.to_user_id',
            't.note',
            't.reason',
            'e.created_at',
          ])
          .where('e.account_id', '=', account.id)
          .orderBy('e.id', 'desc')
          .limit(limit)
          .offset(offset)
          .execute(),
        k
          .selectFrom('economy_entries')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('account_id', '=', account.id)
          .executeTakeFirstOrThrow(),
      ]);
      return { rows, total: count.n };
    },

    /**
     * Moves coins between two users, or says why not (changing nothing). Transfers that arrive
     * while one is being written are written together in the next transaction (group commit),
     * each exactly as it would be alone.
     */
    async transfer(request: TransferRequest, at: number): Promise<TransferOutcome> {
      const first = await writeTransfer({ request, at });
      if (first.outcome !== 'recipient_not_found') return first;
      await ensureAccounts(k, [request.toUserId], at);
      return writeTransfer({ request, at });
    },

    /** Mints coins to a user by an operator's decision; null when the user does not exist. */
    async grant(
      userId: number,
      amount: number,
      reason: string,
      at: number,
    ): Promise<{ id: number; balance: number } | null> {
      const attempt = () =>
        writeTransaction(k, async (trx) => {
          const accounts = await lockAccounts(trx, db.dialect, [userId], true);
          const issuance = accounts.find((a) => a.user_id === null);
          const account = accounts.find((a) => a.user_id === userId);
          if (!account) return null;
          if (!issuance) throw new Error('the issuance account is missing');
          const posting = mintOf(issuance, account, { kind: 'grant', amount, reason }, at);
          const [id] = await postAll(trx, [posting]);
          if (id === undefined) throw new Error('the grant was not written');
          const balance = posting.after[1] ?? 0;
          await emitEvents(
            trx,
            db.dialect,
            [eventOf(GRANT_CREATED, { grant_id: id, user_id: userId, amount, reason, balance }, { userId })],
            at,
          );
          return { id, balance };
        });
      const first = await attempt();
      if (first) return first;
      await ensureAccounts(k, [userId], at);
      return attempt();
    },

    /** Proves the ledger sound: every movement balances, every balance is its entries, none negative. */
    async audit(): Promise<AuditReport> {
      // Each check is one statement, so each reads one consistent snapshot even while transfers run.
      const totals = await k
        .selectFrom('economy_entries')
        .select((eb) => [
          eb.fn.countAll<number>().as('n'),
          eb.fn.coalesce(eb.fn.sum<number>('amount'), sql<number>`0`).as('sum'),
        ])
        .executeTakeFirstOrThrow();
      const counts = await k
        .selectFrom('economy_transactions')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      const unbalanced = await k
        .selectFrom('economy_transactions as t')
        .leftJoin('economy_entries as e', 'e.transaction_id', 't.id')
        .select('t.id')
        .groupBy('t.id')
        .having((eb) =>
          eb.or([
            eb(eb.fn.coalesce(eb.fn.sum<number>('e.amount'), sql<number>`0`), '<>', 0),
            eb(eb.fn.count<number>('e.id'), '<', 2),
          ]),
        )
        .orderBy('t.id')
        .limit(100)
        .execute();
      const mismatched = await k
        .selectFrom('economy_accounts as a')
        .leftJoin('economy_entries as e', 'e.account_id', 'a.id')
        .select((eb) => [
          'a.id as account_id',
          'a.balance',
          eb.fn.coalesce(eb.fn.sum<number>('e.amount'), sql<number>`0`).as('entries'),
        ])
        .groupBy(['a.id', 'a.balance'])
        .having((eb) => eb('a.balance', '<>', eb.fn.coalesce(eb.fn.sum<number>('e.amount'), sql<number>`0`)))
        .orderBy('a.id')
        .limit(100)
        .execute();
      const negative = await k
        .selectFrom('economy_accounts')
        .select('id')
        .where('user_id', 'is not', null)
        .where('balance', '<', 0)
        .orderBy('id')
        .limit(100)
        .execute();
      const accounts = await k
        .selectFrom('economy_accounts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      const sum = totals.sum;
      return {
        ok: sum === 0 && unbalanced.length === 0 && mismatched.length === 0 && negative.length === 0,
        accounts: accounts.n,
        transactions: counts.n,
        entries: totals.n,
        sum,
        unbalanced: unbalanced.map((r) => r.id),
        mismatched: mismatched.map((m) => ({
          account_id: m.account_id,
          balance: m.balance,
          entries: m.entries,
        })),
        negative: negative.map((r) => r.id),
      };
    },
  };
}

export type EconomyRepo = ReturnType<typeof economyRepo>;
