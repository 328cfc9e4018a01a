import { Type } from 'typebox';
import { defineEvent } from '../events/define.js';
import { Text, UserId } from '../events/fields.js';

/** A user's grants to an app, told only to that app: who authorized it, with which scopes. */

const GrantFields = {
  user_id: UserId('The user who decided'),
  client_id: Text('The app’s OAuth client id', 'app_4f9c2d1e8b7a'),
  scopes: Type.Array(Type.String(), {
    description: 'Scopes granted',
    examples: [['identify', 'stats:read']],
  }),
};
const GRANT_EXAMPLE = { user_id: 42, client_id: 'app_4f9c2d1e8b7a', scopes: ['identify', 'stats:read'] };

export const AUTHORIZATION_GRANTED = defineEvent({
  type: 'authorization.granted',
  description: 'A user authorized the app (or allowed it more scopes) on the consent page.',
  properties: GrantFields,
  example: GRANT_EXAMPLE,
  scope: null,
  audience: 'app',
});

export const AUTHORIZATION_REVOKED = defineEvent({
  type: 'authorization.revoked',
  description: 'A user took back every grant they gave the app; its tokens for that user stopped working.',
  properties: GrantFields,
  example: GRANT_EXAMPLE,
  scope: null,
  audience: 'app',
});

export const OAUTH_EVENTS = [AUTHORIZATION_GRANTED, AUTHORIZATION_REVOKED];
