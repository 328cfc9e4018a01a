import { sql, type Kysely, type RawBuilder, type Selectable } from 'kysely';
import type { Dialect } from '../../db/connect.js';
import { ISSUANCE_ACCOUNT } from '../../db/migrations/0014_economy.js';
import type { Database, EconomyAccountsTable, EconomyTransactionsTable } from '../../db/types.js';
import { isBalanced } from '../../engines/ledger.js';

/**
 * How the ledger is written. Every movement is one transaction row and its legs (entries that sum
 * to zero), posted on accounts the caller's transaction has locked first, always in id order
 * (PostgreSQL `SELECT ... FOR UPDATE ... ORDER BY id`; SQLite holds the database's write lock from
 * BEGIN IMMEDIATE: `writeTransaction`). The issuance account was created first and has the lowest
 * id, so a mint locks it before any user's account.
 *
 * The accounts are locked, so their balances are known in memory: a movement is first applied
 * there (`apply`, which gives each leg's balance after), then any number of movements are written
 * together in three statements (`postAll`): their rows, every account's net change, their entries.
 * Nothing here updates or deletes a movement or an entry; the database refuses it anyway
 * (0014_economy).
 */
export type Executor = Kysely<Database>;

export type Account = Pick<Selectable<EconomyAccountsTable>, 'id' | 'user_id' | 'balance'>;
export type Movement = Omit<Selectable<EconomyTransactionsTable>, 'id' | 'created_at'>;
export interface Leg {
  account: Account;
  amount: number;
}

/** A movement applied to locked accounts in memory, to be written by `postAll`. */
export interface Posting {
  movement: Movement;
  legs: Leg[];
  /** each leg's balance once applied */
  after: number[];
  at: number;
}

/**
 * Gives each listed user that exists an account (balance 0), if it has none yet. A transfer or a
 * grant opens the account of a user receiving coins for the first time in a statement of its own,
 * then tries again: its transaction only ever locks accounts that existed when it began, in id
 * order, and the common case (the account is there) costs no extra statement.
 */
export async function ensureAccounts(db: Executor, userIds: number[], at: number): Promise<void> {
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
export async function lockAccounts(
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

/** Applies a movement to its locked accounts in memory; the caller checked that it may. */
export function apply(movement: Movement, legs: Leg[], at: number): Posting {
  if (!isBalanced(legs.map((l) => l.amount))) throw new Error('a movement must balance');
  return { movement, legs, at, after: legs.map((leg) => (leg.account.balance += leg.amount)) };
}

/** A mint: coins from the issuance account to a user's. */
export function mintOf(
  issuance: Account,
  account: Account,
  what: { kind: 'reward' | 'grant'; amount: number; reason: string },
  at: number,
): Posting {
  if (account.user_id === null) throw new Error('coins are minted to a user');
  return apply(
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
}

/**
 * Writes applied movements, in three statements however many there are, and returns their ids in
 * order. Ids are handed out in the order of the rows of one insert, on both databases, so the
 * sorted ids are the movements' ids. A movement whose Idempotency-Key is already in the ledger
 * writes nothing: the caller checked the keys, so only a transfer committed meanwhile by another
 * instance can have spent one, and then this throws (the transaction rolls back, and the group
 * commit writes each transfer again alone, which finds that transfer).
 */
export async function postAll(trx: Executor, postings: readonly Posting[]): Promise<number[]> {
  const ids: number[] = [];
  // a batch of ingest rewards may hold thousands: within SQLite's bound values per statement
  for (let i = 0; i < postings.length; i += POSTINGS_PER_STATEMENT)
    ids.push(...(await postChunk(trx, postings.slice(i, i + POSTINGS_PER_STATEMENT))));
  return ids;
}

/** Movements per insert (9 bound values each, their entries 10). */
const POSTINGS_PER_STATEMENT = 500;

async function postChunk(trx: Executor, postings: readonly Posting[]): Promise<number[]> {
  const rows = await trx
    .insertInto('economy_transactions')
    .values(postings.map((p) => ({ ...p.movement, created_at: p.at })))
    .onConflict((oc) => oc.columns(['idempotency_owner', 'idempotency_key']).doNothing())
    .returning('id')
    .execute();
  if (rows.length !== postings.length) throw new Error('an Idempotency-Key was spent by a concurrent write');
  const ids = rows.map((r) => r.id).sort((a, b) => a - b);

  // each account's net change, and when the last of its movements was asked (as if written one by one)
  const change = new Map<number, { amount: number; at: number }>();
  for (const { legs, at } of postings)
    for (const leg of legs)
      change.set(leg.account.id, { amount: (change.get(leg.account.id)?.amount ?? 0) + leg.amount, at });
  // the `else` types the parameters (PostgreSQL reads a CASE of untyped parameters alone as text)
  const byAccount = (value: (c: { amount: number; at: number }) => number, otherwise: RawBuilder<number>) =>
    sql<number>`case ${sql.join(
      [...change].map(([id, c]) => sql`when id = ${id} then ${value(c)}`),
      sql` `,
    )} else ${otherwise} end`;
  await trx
    .updateTable('economy_accounts')
    .set((eb) => ({
      balance: eb(
        'balance',
        '+',
        byAccount((c) => c.amount, sql`0`),
      ),
      updated_at: byAccount((c) => c.at, sql.ref('updated_at')),
    }))
    .where('id', 'in', [...change.keys()])
    .execute();

  await trx
    .insertInto('economy_entries')
    .values(
      postings.flatMap((p, i) =>
        p.legs.map((leg, j) => ({
          transaction_id: ids[i] ?? 0,
          account_id: leg.account.id,
          amount: leg.amount,
          balance_after: p.after[j] ?? 0,
          created_at: p.at,
        })),
      ),
    )
    .execute();
  return ids;
}
