import { Type } from 'typebox';
import { defineEvent, eventOf } from '../events/define.js';
import type { NewEvent } from '../events/outbox.js';
import { tierForOwner, type Subscription } from '../keys/tiers.js';
import { Text, UserId } from '../events/fields.js';

/** Events of hub accounts, private to the account's user (scope identify). */

const Tier = () =>
  Type.Union(
    [Type.Literal('free'), Type.Literal('authenticated'), Type.Literal('premium'), Type.Literal('partner')],
    { description: 'The plan the user’s API keys spend', examples: ['free'] },
  );

export const ACCOUNT_CREATED = defineEvent({
  type: 'account.created',
  description: 'A hub account was created (portal sign-up or `hub users create`).',
  properties: { user_id: UserId(), username: Text('Username', 'ace') },
  example: { user_id: 42, username: 'ace' },
  scope: 'identify',
  audience: 'user',
});

export const ACCOUNT_TIER_CHANGED = defineEvent({
  type: 'account.tier_changed',
  description:
    'An operator changed the account’s subscription or partner status (`hub users set-subscription`, `set-partner`); its keys follow at once.',
  properties: {
    user_id: UserId(),
    subscription: Text('Subscription', 'premium'),
    partner: Type.Boolean({ description: 'Approved partner', examples: [false] }),
    tier: Tier(),
  },
  example: { user_id: 42, subscription: 'premium', partner: false, tier: 'premium' },
  scope: 'identify',
  audience: 'user',
});

/** The plan of an account after an operator changed it. */
export const tierEvent = (account: {
  id: number;
  subscription: Subscription;
  is_partner: number;
}): NewEvent =>
  eventOf(
    ACCOUNT_TIER_CHANGED,
    {
      user_id: account.id,
      subscription: account.subscription,
      partner: account.is_partner === 1,
      tier: tierForOwner(account),
    },
    { userId: account.id },
  );

export const ACCOUNT_EVENTS = [ACCOUNT_CREATED, ACCOUNT_TIER_CHANGED];
