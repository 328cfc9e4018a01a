import { sql, type Selectable } from 'kysely';
import type { Dialect } from '../../db/connect.js';
import type { EconomyTransactionsTable } from '../../db/types.js';
import type { StoredResponse } from '../../http/idempotency.js';
import { emitEvents } from '../events/outbox.js';
import { storeAnswers } from '../idempotency/repo.js';
import { transferEvents } from './events.js';
import { apply, lockAccounts, postAll, type Executor, type Posting } from './postings.js';

type TransactionRow = Selectable<EconomyTransactionsTable>;

export type TransferRow = Pick<TransactionRow, 'id' | 'to_user_id' | 'amount' | 'note' | 'created_at'> & {
  /** always a user for a transfer */
  from_user_id: number;
  /** the sender's balance once the transfer was written */
  balance_after: number;
};

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
   * own transaction (src/http/idempotency.ts). Called for each attempt: a batch that fails after
   * it rolls back with the answer, and the transfer is written again alone (group commit).
   */
  answer?: (transfer: TransferRow) => { fingerprint: string; response: StoredResponse };
}

export type TransferOutcome =
  | { outcome: 'done'; transfer: TransferRow }
  /** the Idempotency-Key was already spent by a transfer written earlier (perhaps by a process that died before answering) */
  | { outcome: 'prior'; transfer: TransferRow }
  | { outcome: 'recipient_not_found' }
  | { outcome: 'insufficient_funds'; balance: number };

/** A transfer waiting for its transaction, and when it was asked for. */
export interface QueuedTransfer {
  request: TransferRequest;
  at: number;
}

const keyOf = ({ owner, key }: TransferIdempotency) => `${owner}\u0000${key}`;

/**
 * The read of the transfers written under these keys. Each key is one probe of the ledger's
 * (owner, key) index, and each transfer found one of its entries' movement index (0020): the
 * pairs are row values matched against a VALUES list (two IN lists, of owners and of keys, would
 * probe every combination of them).
 */
export const priorTransfersQuery = (trx: Executor, keys: readonly TransferIdempotency[]) =>
  trx
    .selectFrom('economy_transactions as t')
    .innerJoin('economy_entries as e', (j) => j.onRef('e.transaction_id', '=', 't.id').on('e.amount', '<', 0))
    .select([
      't.id',
      't.from_user_id',
      't.to_user_id',
      't.amount',
      't.note',
      't.created_at',
      't.idempotency_owner',
      't.idempotency_key',
      'e.balance_after',
    ])
    .where(
      sql<boolean>`(t.idempotency_owner, t.idempotency_key) in (values ${sql.join(
        keys.map((k) => sql`(${k.owner}, ${k.key})`),
      )})`,
    )
    .where('t.kind', '=', 'transfer');

/** The transfers already written under these keys, by key: one read for a whole batch. */
async function priorTransfers(
  trx: Executor,
  keys: readonly TransferIdempotency[],
): Promise<Map<string, TransferRow>> {
  const found = new Map<string, TransferRow>();
  if (keys.length === 0) return found;
  const rows = await priorTransfersQuery(trx, keys).execute();
  for (const { idempotency_owner: owner, idempotency_key: key, ...row } of rows)
    found.set(keyOf({ owner: owner ?? '', key: key ?? '' }), { ...row, from_user_id: row.from_user_id ?? 0 });
  return found;
}

/** How a transfer of a batch ends: now (refused, or a key spent earlier), or with a posting. */
type Planned = TransferOutcome | { posting: number; repeat: boolean };

/**
 * Writes a batch of transfers in one transaction, each exactly as it would be alone and in order:
 * the same checks on the balances left by the ones before it, the same Idempotency-Key rules (a
 * key spent earlier, or by an earlier transfer of the batch, answers with that transfer whatever
 * the balances are now). Whatever the batch's size, it costs the same few statements: the
 * accounts locked, the keys read, the movements posted (`postAll`), the answers stored, the events
 * emitted. Returns one outcome per transfer, in order.
 */
export async function writeTransfers(
  trx: Executor,
  dialect: Dialect,
  batch: readonly QueuedTransfer[],
): Promise<TransferOutcome[]> {
  const userIds = batch.flatMap(({ request }) => [request.fromUserId, request.toUserId]);
  const accounts = await lockAccounts(trx, dialect, [...new Set(userIds)], false);
  const accountOf = new Map(accounts.map((a) => [a.user_id, a]));
  const prior = await priorTransfers(
    trx,
    batch.flatMap(({ request }) => (request.idempotency ? [request.idempotency] : [])),
  );

  const planned: Planned[] = [];
  const written: { request: TransferRequest; posting: Posting }[] = [];
  const postingOfKey = new Map<string, number>();
  for (const { request, at } of batch) {
    const { fromUserId, toUserId, amount, idempotency } = request;
    const key = idempotency && keyOf(idempotency);
    const before = key === undefined ? undefined : prior.get(key);
    const earlier = key === undefined ? undefined : postingOfKey.get(key);
    const from = accountOf.get(fromUserId);
    const to = accountOf.get(toUserId);
    if (before) planned.push({ outcome: 'prior', transfer: before });
    else if (earlier !== undefined) planned.push({ posting: earlier, repeat: true });
    else if (!to) planned.push({ outcome: 'recipient_not_found' });
    else if (!from || from.balance < amount)
      planned.push({ outcome: 'insufficient_funds', balance: from?.balance ?? 0 });
    else {
      if (key !== undefined) postingOfKey.set(key, written.length);
      planned.push({ posting: written.length, repeat: false });
      written.push({
        request,
        posting: apply(
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
        ),
      });
    }
  }
  if (written.length === 0) return planned.map((p) => ('outcome' in p ? p : unreachable()));

  const ids = await postAll(
    trx,
    written.map((w) => w.posting),
  );
  const transfers = written.map(({ request, posting }, i) => ({
    request,
    posting,
    row: {
      id: ids[i] ?? unreachable(),
      from_user_id: request.fromUserId,
      to_user_id: request.toUserId,
      amount: request.amount,
      note: request.note,
      created_at: posting.at,
      balance_after: posting.after[0] ?? 0,
    } satisfies TransferRow,
  }));
  await storeAnswers(
    trx,
    transfers.flatMap(({ request: { idempotency }, row }) =>
      idempotency?.answer
        ? [{ owner: idempotency.owner, key: idempotency.key, at: row.created_at, ...idempotency.answer(row) }]
        : [],
    ),
  );
  // each transfer's events stamped when it was asked, as when written alone (not with a
  // neighbour's time), all in one statement
  await emitEvents(
    trx,
    dialect,
    transfers.flatMap(({ posting, row }) =>
      transferEvents(row, { from: posting.after[0] ?? 0, to: posting.after[1] ?? 0 }).map((event) => ({
        ...event,
        at: row.created_at,
      })),
    ),
    Math.max(...transfers.map((t) => t.row.created_at)),
  );
  return planned.map((p): TransferOutcome => {
    if ('outcome' in p) return p;
    const transfer = transfers[p.posting]?.row ?? unreachable();
    return { outcome: p.repeat ? 'prior' : 'done', transfer };
  });
}

function unreachable(): never {
  throw new Error('a planned transfer has no posting');
}
