import { sql, type Kysely, type Selectable } from 'kysely';
import type { Db, Dialect } from '../../db/connect.js';
import { ISSUANCE_ACCOUNT } from '../../db/migrations/0014_economy.js';
import type {
  Database,
  EconomyAccountsTable,
  EconomyEntriesTable,
  EconomyTransactionsTable,
} from '../../db/types.js';
import { groupCommit } from '../../db/group-commit.js';
import { writeTransaction } from '../../db/write-transaction.js';
import type { StoredResponse } from '../../http/idempotency.js';
import { storeAnswer } from '../idempotency/repo.js';
import { eventOf } from '../events/define.js';
import { emitEvents, type NewEvent } from '../events/outbox.js';
import { GRANT_CREATED, transferEvents } from './events.js';
import { isBalanced, type Reward } from '../../engines/ledger.js';

/**
 * The only SQL of the economy. Every movement is written by `post`: one transaction row, its
 * legs (entries that sum to zero) and the accounts' balances, inside a transaction that has locked
 * those accounts first, always in id order (PostgreSQL `SELECT ... FOR UPDATE ... ORDER BY id`;
 * SQLite holds the database's write lock from BEGIN IMMEDIATE: `writeTransaction`). The issuance account was created
 * first and has the lowest id, so a mint locks it before any user's account. Nothing here
 * updates or deletes a movement or an entry; the database refuses it anyway (0014_economy).
 */
type Executor = Kysely<Database>;

type Account = Pick<Selectable<EconomyAccountsTable>, 'id' | 'user_id' | 'balance'>;
type TransactionRow = Selectable<EconomyTransactionsTable>;
type Movement = Omit<TransactionRow, 'id' | 'created_at'>;

export type TransferRow = Pick<TransactionRow, 'id' | 'to_user_id' | 'amount' | 'note' | 'created_at'> & {
  /** always a user for a transfer */
  from_user_id: number;
  /** the sender's balance once the transfer was written */
  balance_after: number;
};

export type HistoryRow = Pick<
  Selectable<EconomyEntriesTable>,
  'id' | 'transaction_id' | 'amount' | 'balance_after' | 'created_at'
> &
  Pick<TransactionRow, 'kind' | 'from_user_id' | 'to_user_id' | 'note' | 'reason'>;

export interface TransferRequest {
  fromUserId: number;
  toUserId: number;
  amount: number;
  note: string | null;
  idempotency?: TransferIdempotency;
}

export interface TransferIdempotency {
  owner: string;
  key: string;
  /**
   * The HTTP answer to a transfer this request writes, stored under the key in the transfer's
   * own transaction (one transaction per request: src/http/idempotency.ts).
   */
  answer?: (transfer: TransferRow) => { fingerprint: string; response: StoredResponse };
}

export type TransferOutcome =
  | { outcome: 'done'; transfer: TransferRow }
  /** the Idempotency-Key was already spent by a transfer written earlier (perhaps by a process that died before answering) */
  | { outcome: 'prior'; transfer: TransferRow }
  | { outcome: 'recipient_not_found' }
  | { outcome: 'insufficient_funds'; balance: number };

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
 * Gives each listed user that exists an account (balance 0), if it has none yet. A transfer or a
 * grant opens the account of a user receiving coins for the first time in a statement of its own,
 * then tries again: its transaction only ever locks accounts that existed when it began, in id
 * order, and the common case (the account is there) costs no extra statement.
 */
async function ensureAccounts(db: Executor, userIds: number[], at: number): Promise<void> {
  if (userIds.length === 0) return;
  await db
    .insertInto('economy_accounts')
    .columns(['user_id', 'balance', 'updated_at'])
    .expression((eb) =>
      eb
        .selectFrom('users')
        .select((s) => ['id', s.lit(0).as('balance'), s.val(at).as('updated_at')])
        .where('id', 'in', userIds),
    )
    .onConflict((oc) => oc.column('user_id').doNothing())
    .execute();
}

/** Locks the users' accounts (and the issuance account) in id order, and reads their balances. */
async function lockAccounts(
  trx: Executor,
  dialect: Dialect,
  userIds: number[],
  issuance: boolean,
): Promise<Account[]> {
  const query = trx
    .selectFrom('economy_accounts')
    .select(['id', 'user_id', 'balance'])
    .where((eb) =>
      eb.or([eb('user_id', 'in', userIds), ...(issuance ? [eb('system', '=', ISSUANCE_ACCOUNT)] : [])]),
    )
    .orderBy('id');
  return dialect === 'postgres' ? query.forUpdate().execute() : query.execute();
}

/**
 * Writes one movement and its legs on locked accounts; returns its id (undefined when the movement's
 * Idempotency-Key was already spent: nothing is written then) and each leg's balance after. The
 * accounts are locked, so their balances are known here: every leg's account changes in one
 * statement, and the entries record the balances computed from the locked ones.
 */
async function post(
  trx: Executor,
  movement: Movement,
  legs: { account: Account; amount: number }[],
  at: number,
): Promise<{ id: number; after: number[] } | undefined> {
  if (!isBalanced(legs.map((l) => l.amount))) throw new Error('a movement must balance');
  const written = await trx
    .insertInto('economy_transactions')
    .values({ ...movement, created_at: at })
    .onConflict((oc) => oc.columns(['idempotency_owner', 'idempotency_key']).doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!written) return undefined;
  const after = legs.map((leg) => (leg.account.balance += leg.amount));
  await trx
    .updateTable('economy_accounts')
    .set((eb) => ({
      balance: eb(
        'balance',
        '+',
        sql<number>`case ${sql.join(
          legs.map((leg) => sql`when id = ${leg.account.id} then ${leg.amount}`),
          sql` `,
        )} else 0 end`,
      ),
      updated_at: at,
    }))
    .where(
      'id',
      'in',
      legs.map((leg) => leg.account.id),
    )
    .execute();
  await trx
    .insertInto('economy_entries')
    .values(
      legs.map((leg, i) => ({
        transaction_id: written.id,
        account_id: leg.account.id,
        amount: leg.amount,
        balance_after: after[i] ?? 0,
        created_at: at,
      })),
    )
    .execute();
  return { id: written.id, after };
}

async function priorTransfer(trx: Executor, owner: string, key: string): Promise<TransferRow | undefined> {
  const row = await trx
    .selectFrom('economy_transactions as t')
    .innerJoin('economy_entries as e', (j) => j.onRef('e.transaction_id', '=', 't.id').on('e.amount', '<', 0))
    .select([
      't.id',
      't.from_user_id',
      't.to_user_id',
      't.amount',
      't.note',
      't.created_at',
      'e.balance_after',
    ])
    .where('t.idempotency_owner', '=', owner)
    .where('t.idempotency_key', '=', key)
    .where('t.kind', '=', 'transfer')
    .executeTakeFirst();
  return row && { ...row, from_user_id: row.from_user_id ?? 0 };
}

/** Mints coins from the issuance account to a user's (both locked): a reward or a grant. */
async function mint(
  trx: Executor,
  issuance: Account,
  account: Account,
  what: { kind: 'reward' | 'grant'; amount: number; reason: string },
  at: number,
): Promise<{ id: number; balance: number }> {
  if (account.user_id === null) throw new Error('coins are minted to a user');
  const posted = await post(
    trx,
    {
      kind: what.kind,
      from_user_id: null,
      to_user_id: account.user_id,
      amount: what.amount,
      note: null,
      reason: what.reason,
      idempotency_owner: null,
      idempotency_key: null,
    },
    [
      { account: issuance, amount: -what.amount },
      { account, amount: what.amount },
    ],
    at,
  );
  // a mint has no Idempotency-Key, so nothing can conflict with it
  if (!posted) throw new Error('a mint was refused by the ledger');
  return { id: posted.id, balance: posted.after[1] ?? 0 };
}

/** What one transfer of a batch did: the movement it wrote (and the balances after), or why not. */
type BatchedOutcome =
  | Exclude<TransferOutcome, { outcome: 'done' }>
  | { outcome: 'done'; transfer: TransferRow; balances: { from: number; to: number } };

/**
 * One transfer inside a transaction that has locked its two accounts (and perhaps others): the
 * same checks and writes whether it is alone or one of a batch. Its events are the caller's to
 * emit, once for the whole batch.
 */
async function transferOn(
  trx: Executor,
  locked: Account[],
  request: TransferRequest,
  at: number,
): Promise<BatchedOutcome> {
  const { fromUserId, toUserId, amount, idempotency } = request;
  // A retry whose transfer was written earlier is answered with it, whatever the balances are
  // now. The common case (a new key) costs no read: the key is unique in the ledger, and writing
  // it is what finds it spent.
  const spent = async () => idempotency && (await priorTransfer(trx, idempotency.owner, idempotency.key));
  const to = locked.find((a) => a.user_id === toUserId);
  const from = locked.find((a) => a.user_id === fromUserId);
  if (!to || !from || from.balance < amount) {
    const prior = await spent();
    if (prior) return { outcome: 'prior', transfer: prior };
    if (!to) return { outcome: 'recipient_not_found' };
    return { outcome: 'insufficient_funds', balance: from?.balance ?? 0 };
  }
  const posted = await post(
    trx,
    {
      kind: 'transfer',
      from_user_id: fromUserId,
      to_user_id: toUserId,
      amount,
      note: request.note,
      reason: null,
      idempotency_owner: idempotency?.owner ?? null,
      idempotency_key: idempotency?.key ?? null,
    },
    [
      { account: from, amount: -amount },
      { account: to, amount },
    ],
    at,
  );
  if (!posted) {
    const prior = await spent();
    if (!prior) throw new Error('the Idempotency-Key was spent by a movement that is not a transfer');
    return { outcome: 'prior', transfer: prior };
  }
  const [fromAfter = 0, toAfter = 0] = posted.after;
  const transfer = {
    id: posted.id,
    from_user_id: fromUserId,
    to_user_id: toUserId,
    amount,
    note: request.note,
    created_at: at,
    balance_after: fromAfter,
  };
  if (idempotency?.answer) {
    const { fingerprint, response } = idempotency.answer(transfer);
    await storeAnswer(trx, idempotency.owner, idempotency.key, fingerprint, response, at);
  }
  return { outcome: 'done', transfer, balances: { from: fromAfter, to: toAfter } };
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
  for (const reward of rewards) {
    const account = accounts.find((a) => a.user_id === reward.userId);
    if (!account) throw new Error(`no account for user ${reward.userId}`);
    await mint(trx, issuance, account, { kind: 'reward', ...reward }, at);
  }
}

/** The most transfers one transaction writes (group commit). */
export const TRANSFERS_PER_COMMIT = 64;

export function economyRepo(db: Db, options: { transfersPerCommit?: number } = {}) {
  const k = db.kysely;
  const writeTransfer = groupCommit<{ request: TransferRequest; at: number }, TransferOutcome>({
    maxBatch: options.transfersPerCommit ?? TRANSFERS_PER_COMMIT,
    write: (take) =>
      writeTransaction(k, async (trx) => {
        const batch = take();
        // Every account of the batch is locked first, in id order: a request racing with the same
        // key (same sender, so the same account) waits here for the first to commit, then finds
        // the key spent; two batches locking in the same order cannot deadlock.
        const userIds = batch.flatMap(({ request }) => [request.fromUserId, request.toUserId]);
        const accounts = await lockAccounts(trx, db.dialect, [...new Set(userIds)], false);
        const outcomes: TransferOutcome[] = [];
        const events: NewEvent[] = [];
        for (const { request, at } of batch) {
          const outcome = await transferOn(trx, accounts, request, at);
          outcomes.push(outcome);
          if (outcome.outcome === 'done') {
            const { transfer, balances } = outcome;
            events.push(...transferEvents(transfer, balances));
          }
        }
        // the batch's events in one statement, stamped when the last of its transfers was asked
        await emitEvents(trx, db.dialect, events, Math.max(...batch.map((b) => b.at)));
        return outcomes.map((o) => (o.outcome === 'done' ? { outcome: 'done', transfer: o.transfer } : o));
      }),
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
          const { id, balance } = await mint(trx, issuance, account, { kind: 'grant', amount, reason }, at);
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
