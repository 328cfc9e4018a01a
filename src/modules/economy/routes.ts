import type { FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { CURRENCY, MAX_NOTE_LENGTH, MAX_TRANSFER, REWARDS } from '../../engines/ledger.js';
import type { App } from '../../http/app-types.js';
import { listBody, ListOf, One, PageQuery, pageWindow, v1Route } from '../../http/v1-route.js';
import { Timestamp } from '../../http/schemas.js';
import { invalidAmount, type EconomyService, type TransferRecord } from './service.js';

const TAG = 'Economy';
const JSON_UTF8 = 'application/json; charset=utf-8';
const Coins = (description: string, example: number) => Type.Integer({ description, examples: [example] });
const Currency = Type.Literal(CURRENCY, { description: 'the hub\u2019s one currency' });

const Balance = Type.Object(
  {
    balance: Type.Integer({ minimum: 0, description: 'whole coins; never below zero', examples: [1250] }),
    currency: Currency,
    updated_at: Type.Union([Timestamp('when the balance last changed'), Type.Null()], {
      description: 'when the balance last changed; null if it never has',
    }),
  },
  { $id: 'EconomyBalance', title: 'EconomyBalance' },
);

const Transfer = Type.Object(
  {
    id: Type.Integer({ description: 'transaction id', examples: [5012] }),
    from_user_id: Type.Integer({ description: 'the sender (the signed-in user)', examples: [7] }),
    to_user_id: Type.Integer({ description: 'the recipient', examples: [42] }),
    amount: Type.Integer({ minimum: 1, maximum: MAX_TRANSFER, examples: [250] }),
    currency: Currency,
    note: Type.Union([
      Type.String({ maxLength: MAX_NOTE_LENGTH, examples: ['gg, thanks for the carry'] }),
      Type.Null(),
    ]),
    balance_after: Coins('the sender\u2019s balance right after this transfer', 1000),
    created_at: Timestamp('when the transfer was written'),
  },
  { $id: 'EconomyTransfer', title: 'EconomyTransfer' },
);

const HistoryEntry = Type.Object(
  {
    id: Type.Integer({ description: 'entry id; entries are listed newest first', examples: [10024] }),
    transaction_id: Type.Integer({ description: 'the movement this entry belongs to', examples: [5012] }),
    type: Type.Union(
      [
        Type.Literal('transfer_out'),
        Type.Literal('transfer_in'),
        Type.Literal('reward'),
        Type.Literal('grant'),
      ],
      { description: 'sent to or received from another user, minted by a rule, or granted by an operator' },
    ),
    amount: Coins('signed: negative when coins left the balance', -250),
    balance_after: Coins('the balance right after this entry', 1000),
    counterparty_user_id: Type.Union([Type.Integer({ examples: [42] }), Type.Null()], {
      description: 'the other user of a transfer; null for rewards and grants',
    }),
    note: Type.Union([Type.String({ examples: ['gg, thanks for the carry'] }), Type.Null()], {
      description: 'the sender\u2019s note of a transfer',
    }),
    reason: Type.Union([Type.String({ examples: ['match_win'] }), Type.Null()], {
      description:
        'why coins were minted: `match_win`, `achievement`, or the operator\u2019s reason of a grant',
    }),
    created_at: Timestamp(),
  },
  { $id: 'EconomyEntry', title: 'EconomyEntry' },
);

const TransferBody = Type.Object(
  {
    to_user_id: Type.Integer({
      minimum: 1,
      maximum: 2147483647,
      description: 'the recipient\u2019s user id',
      examples: [42],
    }),
    amount: Type.Integer({
      minimum: 1,
      maximum: MAX_TRANSFER,
      description: `whole coins, 1 to ${MAX_TRANSFER.toLocaleString('en-US')}; anything else is \`invalid_amount\``,
      examples: [250],
    }),
    note: Type.Optional(
      Type.String({
        maxLength: MAX_NOTE_LENGTH,
        description: 'shown to both users in their history',
        examples: ['gg, thanks for the carry'],
      }),
    ),
  },
  { additionalProperties: false },
);

const LEDGER_RULES =
  `Coins are whole numbers of one currency (\`${CURRENCY}\`), kept in an append-only double-entry ledger: every movement is two entries that sum to zero, ` +
  `and no entry is ever changed or removed. Coins are minted by rules, in the same database transaction as the event: ` +
  `${REWARDS.match_win} coins for each match a player\u2019s team wins, ${REWARDS.achievement} for each achievement unlocked; ` +
  'operators may also grant coins.';

/** The signed-in user; user-context routes never run without one. */
function userOf(request: FastifyRequest): number {
  const userId = request.principal?.userId;
  if (userId === null || userId === undefined) throw new Error('economy routes run for a signed-in user');
  return userId;
}

export function economyRoutes(economy: EconomyService) {
  return (app: App): void => {
    app.addSchema(Balance);
    app.addSchema(Transfer);
    app.addSchema(HistoryEntry);

    app.get(
      '/economy/balance',
      v1Route({
        operationId: 'v1_economy_balance_get',
        tag: TAG,
        summary: 'Your coin balance',
        description: `The signed-in user\u2019s coin balance. ${LEDGER_RULES}`,
        scope: 'economy:read',
        userContext: true,
        response: One(Type.Ref('EconomyBalance'), 'the balance'),
      }),
      async (request) => ({ data: await economy.balance(userOf(request)) }),
    );

    app.get(
      '/economy/transactions',
      v1Route({
        operationId: 'v1_economy_transactions_list',
        tag: TAG,
        summary: 'Your coin history',
        description:
          'The signed-in user\u2019s entries, newest first: transfers sent and received, rewards and grants, each with the balance after it. Only your own history is ever listed.',
        scope: 'economy:read',
        userContext: true,
        querystring: Type.Object(PageQuery),
        response: ListOf(Type.Ref('EconomyEntry'), 'a page of entries, newest first'),
      }),
      async (request) => {
        const query = request.query;
        const { limit, offset } = pageWindow(query);
        const { items, total } = await economy.history(userOf(request), limit, offset);
        return listBody(items, total, query);
      },
    );

    app.post(
      '/economy/transfer',
      {
        ...v1Route({
          operationId: 'v1_economy_transfer_create',
          tag: TAG,
          summary: 'Send coins to another user',
          description:
            `Moves coins from the signed-in user to another user, in one transaction: both legs are written or neither. ` +
            `Requires an \`Idempotency-Key\`: a retry with the same key and body gets the first answer (\`Idempotent-Replayed: true\`), ` +
            `and the key is written with the transfer itself, so the coins move exactly once even if the service restarts mid-request. ` +
            `At most ${MAX_TRANSFER.toLocaleString('en-US')} coins per transfer; the balance never goes below zero. ${LEDGER_RULES}`,
          scope: 'economy:transfer',
          userContext: true,
          idempotency: 'required',
          // the key and its answer are written in the transfer's transaction: one per request
          idempotencyInTransaction: true,
          body: TransferBody,
          status: 201,
          response: One(Type.Ref('EconomyTransfer'), 'the transfer written'),
          errors: ['invalid_amount', 'self_transfer', 'recipient_not_found', 'insufficient_funds'],
        }),
        // a bad amount is its own problem (`invalid_amount`), not a generic invalid body
        attachValidation: true,
      },
      async (request, reply) => {
        const failed = request.validationError;
        if (failed) {
          const onAmount = (failed.validation as { instancePath: string }[]).every(
            (v) => v.instancePath === '/amount',
          );
          if (onAmount) throw invalidAmount((request.body as { amount?: unknown } | undefined)?.amount);
          throw failed;
        }
        const state = request.idempotency;
        // Serialized here, so the answer stored with the transfer is byte for byte the one sent.
        const answerOf = (record: TransferRecord) => JSON.stringify({ data: record });
        const record = await economy
          .transfer(
            userOf(request),
            request.body,
            state && {
              owner: state.owner,
              key: state.key,
              answer: (written) => {
                state.stored = true;
                const body = answerOf(written);
                return {
                  fingerprint: state.fingerprint,
                  response: { status: 201, contentType: JSON_UTF8, body },
                };
              },
            },
          )
          .catch((err: unknown) => {
            // A transfer whose batch failed after its answer was built is written again alone, and
            // may then be refused: that stored answer rolled back, so the refusal is stored after.
            if (state) state.stored = false;
            throw err;
          });
        // already serialized: Fastify sends a string with a JSON content type as it is
        const body = answerOf(record) as unknown as { data: unknown };
        return reply.code(201).type(JSON_UTF8).send(body);
      },
    );
  };
}
