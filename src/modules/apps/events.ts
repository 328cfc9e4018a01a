import { Type } from 'typebox';
import { redirectUrisOf, type AppRow } from './repo.js';
import { defineEvent, eventOf } from '../events/define.js';
import type { NewEvent } from '../events/outbox.js';
import { Id, Text, UserId } from '../events/fields.js';

/** Events of an OAuth app's registration, told only to that app. Never its secret. */

const AppFields = {
  app_id: Id('App', 5),
  client_id: Text('OAuth client id', 'app_4f9c2d1e8b7a'),
  owner_id: UserId('The developer who owns it'),
  name: Text('App name', 'Frag Stats'),
  kind: Type.Union([Type.Literal('public'), Type.Literal('confidential')], {
    description: 'OAuth client type',
    examples: ['confidential'],
  }),
  redirect_uris: Type.Array(Type.String(), {
    description: 'Registered redirect URIs',
    examples: [['https://fragstats.example.com/callback']],
  }),
};
const APP_EXAMPLE = {
  app_id: 5,
  client_id: 'app_4f9c2d1e8b7a',
  owner_id: 42,
  name: 'Frag Stats',
  kind: 'confidential' as const,
  redirect_uris: ['https://fragstats.example.com/callback'],
};

const appDefinition = (type: string, description: string) =>
  defineEvent({
    type,
    description,
    properties: AppFields,
    example: APP_EXAMPLE,
    scope: null,
    audience: 'app',
  });

export const APP_CREATED = appDefinition('app.created', 'The app was registered in the developer portal.');
export const APP_UPDATED = appDefinition(
  'app.updated',
  'The app’s name, redirect URIs, homepage or logo changed.',
);
export const APP_SECRET_ROTATED = appDefinition(
  'app.secret_rotated',
  'The app’s client secret was replaced; the old one stopped working.',
);
export const APP_DELETED = appDefinition(
  'app.deleted',
  'The app was deleted: its tokens and grants are revoked (the last event it can receive).',
);

/** The event of a change to an app, told to that app. */
export const appEvent = (definition: typeof APP_CREATED, app: AppRow): NewEvent =>
  eventOf(
    definition,
    {
      app_id: app.id,
      client_id: app.client_id,
      owner_id: app.owner_id,
      name: app.name,
      kind: app.kind,
      redirect_uris: redirectUrisOf(app),
    },
    { appId: app.id },
  );

export const APP_EVENTS = [APP_CREATED, APP_UPDATED, APP_SECRET_ROTATED, APP_DELETED];
