import { amountFault, CURRENCY, MAX_GRANT, MAX_TRANSFER } from '../../engines/ledger.js';
import { ProblemError } from '../../http/problem.js';
import { toIso } from '../../http/schemas.js';
import type { EconomyRepo, HistoryRow } from './repo.js';
import type { TransferIdempotency, TransferRow } from './transfers.js';

export interface TransferRecord {
  id: number;
  from_user_id: number;
  to_user_id: number;
  amount: number;
  currency: typeof CURRENCY;
  note: string | null;
  /** the sender's balance right after this transfer */
  balance_after: number;
  created_at: string;
}

export type HistoryType = 'transfer_in' | 'transfer_out' | 'reward' | 'grant';

export interface HistoryItem {
  id: number;
  transaction_id: number;
  type: HistoryType;
  amount: number;
  balance_after: number;
  counterparty_user_id: number | null;
  note: string | null;
  reason: string | null;
  created_at: string;
}

export interface TransferInput {
  to_user_id: number;
  amount: number;
  note?: string;
}

/** The problem for an amount outside 1..max (or not a whole number), naming what was sent. */
export function invalidAmount(value: unknown, max = MAX_TRANSFER): ProblemError {
  const reason = (typeof value === 'number' && amountFault(value, max)) || 'must be a whole number of coins';
  const got = value === undefined ? 'nothing' : JSON.stringify(value);
  return new ProblemError('invalid_amount', `body parameter 'amount' ${reason} (got ${got})`, {
    invalidParams: [
      { in: 'body', name: 'amount', reason: `${reason}, from 1 to ${max.toLocaleString('en-US')}` },
    ],
  });
}

const transferRecord = (row: TransferRow): TransferRecord => ({
  id: row.id,
  from_user_id: row.from_user_id,
  to_user_id: row.to_user_id,
  amount: row.amount,
  currency: CURRENCY,
  note: row.note,
  balance_after: row.balance_after,
  created_at: toIso(row.created_at),
});

function historyItem(row: HistoryRow): HistoryItem {
  const type: HistoryType =
    row.kind === 'transfer' ? (row.amount < 0 ? 'transfer_out' : 'transfer_in') : row.kind;
  return {
    id: row.id,
    transaction_id: row.transaction_id,
    type,
    amount: row.amount,
    balance_after: row.balance_after,
    counterparty_user_id:
      type === 'transfer_out' ? row.to_user_id : type === 'transfer_in' ? row.from_user_id : null,
    note: row.note,
    reason: row.reason,
    created_at: toIso(row.created_at),
  };
}

type ServiceIdempotency = Omit<TransferIdempotency, 'answer'> & {
  /** the HTTP answer to store with the transfer (see TransferIdempotency) */
  answer?: (record: TransferRecord) => ReturnType<NonNullable<TransferIdempotency['answer']>>;
};

/** The key as the ledger takes it: its answer built from the record the caller is given. */
function ledgerIdempotency({ owner, key, answer }: ServiceIdempotency): TransferIdempotency {
  return answer ? { owner, key, answer: (row) => answer(transferRecord(row)) } : { owner, key };
}

export function economyService(repo: EconomyRepo, now: () => number) {
  return {
    async balance(userId: number) {
      const account = await repo.balance(userId);
      return {
        balance: account?.balance ?? 0,
        currency: CURRENCY,
        updated_at: account && account.updated_at > 0 ? toIso(account.updated_at) : null,
      };
    },

    async history(userId: number, limit: number, offset: number) {
      const { rows, total } = await repo.history(userId, limit, offset);
      return { items: rows.map(historyItem), total };
    },

    /**
     * Sends coins from one user to another, once per Idempotency-Key: the key is written with
     * the transfer, so a retry after a crash finds the transfer instead of making another.
     */
    async transfer(
      fromUserId: number,
      input: TransferInput,
      idempotency?: ServiceIdempotency,
    ): Promise<TransferRecord> {
      if (amountFault(input.amount, MAX_TRANSFER)) throw invalidAmount(input.amount);
      if (input.to_user_id === fromUserId) {
        throw new ProblemError(
          'self_transfer',
          `You cannot send coins to yourself: to_user_id is your own user id (${fromUserId}).`,
        );
      }
      const note = input.note ?? null;
      const result = await repo.transfer(
        {
          fromUserId,
          toUserId: input.to_user_id,
          amount: input.amount,
          note,
          ...(idempotency ? { idempotency: ledgerIdempotency(idempotency) } : {}),
        },
        now(),
      );
      switch (result.outcome) {
        case 'done':
          return transferRecord(result.transfer);
        case 'prior': {
          const prior = result.transfer;
          if (prior.to_user_id !== input.to_user_id || prior.amount !== input.amount || prior.note !== note) {
            throw new ProblemError(
              'idempotency_key_reused',
              'This Idempotency-Key already sent a different transfer; use a new key for a new operation.',
            );
          }
          return transferRecord(prior);
        }
        case 'recipient_not_found':
          throw new ProblemError(
            'recipient_not_found',
            `There is no user with id ${input.to_user_id} to send coins to.`,
          );
        case 'insufficient_funds':
          throw new ProblemError(
            'insufficient_funds',
            `Your balance is ${result.balance} coins; this transfer needs ${input.amount}.`,
          );
      }
    },

    /** An operator's grant (`hub economy grant`); null when there is no such user. */
    async grant(userId: number, amount: number, reason: string) {
      if (amountFault(amount, MAX_GRANT)) throw invalidAmount(amount, MAX_GRANT);
      return repo.grant(userId, amount, reason, now());
    },

    audit: () => repo.audit(),
  };
}

export type EconomyService = ReturnType<typeof economyService>;
