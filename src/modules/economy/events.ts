import { Type } from 'typebox';
import { toIso } from '../../http/schemas.js';
import { defineEvent, eventOf } from '../events/define.js';
import type { NewEvent } from '../events/outbox.js';
import { At, Count, Id, Text, UserId } from '../events/fields.js';

/** Events of the coin ledger: private to the user whose balance moves (scope economy:read). */

const Amount = () => Type.Integer({ minimum: 1, description: 'Coins moved', examples: [250] });
const Balance = () => Count('The user’s balance after it, in coins', 1_250);

const TRANSFER_EXAMPLE = {
  transfer_id: 9001,
  from_user_id: 42,
  to_user_id: 43,
  amount: 250,
  note: 'gg',
  balance: 1_250,
  created_at: '2026-11-20T18:04:11.000Z',
};

const TransferFields = {
  transfer_id: Id('Ledger movement', 9001),
  from_user_id: UserId('Sender'),
  to_user_id: UserId('Recipient'),
  amount: Amount(),
  note: Type.Union([Type.String({ maxLength: 200 }), Type.Null()], {
    description: 'The sender’s note',
    examples: ['gg'],
  }),
  created_at: At('When it was booked'),
};

export const TRANSFER_CREATED = defineEvent({
  type: 'economy.transfer.created',
  description: 'The user sent coins to another player (told to the sender; `balance` is the sender’s).',
  properties: { ...TransferFields, balance: Balance() },
  example: TRANSFER_EXAMPLE,
  scope: 'economy:read',
  audience: 'user',
});

export const TRANSFER_RECEIVED = defineEvent({
  type: 'economy.transfer.received',
  description: 'The user received coins from another player (told to the recipient; `balance` is theirs).',
  properties: { ...TransferFields, balance: Balance() },
  example: { ...TRANSFER_EXAMPLE, balance: 730 },
  scope: 'economy:read',
  audience: 'user',
});

export const GRANT_CREATED = defineEvent({
  type: 'economy.grant.created',
  description: 'An operator granted coins to the user (`hub economy grant`).',
  properties: {
    grant_id: Id('Ledger movement', 9002),
    user_id: UserId(),
    amount: Amount(),
    reason: Text('The operator’s reason', 'season prize'),
    balance: Balance(),
  },
  example: { grant_id: 9002, user_id: 42, amount: 500, reason: 'season prize', balance: 1_750 },
  scope: 'economy:read',
  audience: 'user',
});

export const REWARD_MINTED = defineEvent({
  type: 'economy.reward.minted',
  description:
    'Coins minted to the user by a rule of the hub (a match win, an achievement), in the batch that earned them.',
  properties: {
    user_id: UserId(),
    amount: Amount(),
    reason: Type.Union([Type.Literal('match_win'), Type.Literal('achievement')], {
      description: 'The rule',
      examples: ['match_win'],
    }),
  },
  example: { user_id: 42, amount: 50, reason: 'match_win' },
  scope: 'economy:read',
  audience: 'user',
});

/** A booked transfer, told to each side with their own balance after it. */
export function transferEvents(
  t: {
    id: number;
    from_user_id: number;
    to_user_id: number;
    amount: number;
    note: string | null;
    created_at: number;
  },
  balances: { from: number; to: number },
): NewEvent[] {
  const data = {
    transfer_id: t.id,
    from_user_id: t.from_user_id,
    to_user_id: t.to_user_id,
    amount: t.amount,
    note: t.note,
    created_at: toIso(t.created_at),
  };
  return [
    eventOf(TRANSFER_CREATED, { ...data, balance: balances.from }, { userId: t.from_user_id }),
    eventOf(TRANSFER_RECEIVED, { ...data, balance: balances.to }, { userId: t.to_user_id }),
  ];
}

export const ECONOMY_EVENTS = [TRANSFER_CREATED, TRANSFER_RECEIVED, GRANT_CREATED, REWARD_MINTED];
