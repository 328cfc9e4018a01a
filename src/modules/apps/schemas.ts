import { Type, type Static } from 'typebox';
import { StringEnum, Timestamp, TrimmedName } from '../../http/schemas.js';
import { redirectUrisOf, type AppRow } from './repo.js';
import { APP_NAME_MAX, REDIRECT_URIS_MAX, URL_MAX } from './rules.js';

export const AppSchema = Type.Object(
  {
    id: Type.Integer({ examples: [3] }),
    client_id: Type.String({ description: 'the OAuth client_id (public)', examples: ['app_0f3c…'] }),
    name: Type.String({ examples: ['Frag Tracker'] }),
    kind: StringEnum(['public', 'confidential'] as const, {
      description:
        '`confidential`: a server-side app holding a client secret (HTTP Basic at the token endpoint, may use client_credentials); `public`: a browser or native app without one',
    }),
    redirect_uris: Type.Array(Type.String(), { description: 'exact redirect URIs (no wildcards)' }),
    homepage_url: Type.Union([Type.String(), Type.Null()]),
    logo_url: Type.Union([Type.String(), Type.Null()]),
    created: Timestamp('when the app was registered'),
    updated: Timestamp('when the app was last changed'),
  },
  { $id: 'App', title: 'App', description: 'An app registered for OAuth; never its secret' },
);
export type AppView = Static<typeof AppSchema>;

export function appView(app: AppRow): AppView {
  return {
    id: app.id,
    client_id: app.client_id,
    name: app.name,
    kind: app.kind,
    redirect_uris: redirectUrisOf(app),
    homepage_url: app.homepage_url,
    logo_url: app.logo_url,
    created: new Date(app.created_at).toISOString(),
    updated: new Date(app.updated_at).toISOString(),
  };
}

const fields = {
  name: TrimmedName(APP_NAME_MAX, ['Frag Tracker']),
  redirect_uris: Type.Array(Type.String({ maxLength: URL_MAX }), {
    minItems: 1,
    maxItems: REDIRECT_URIS_MAX,
    description: 'https URIs (plain http only to 127.0.0.1, [::1] or localhost), compared exactly',
    examples: [['https://fragtracker.example/callback']],
  }),
  homepage_url: Type.Union([Type.String({ maxLength: URL_MAX }), Type.Null()]),
  logo_url: Type.Union([Type.String({ maxLength: URL_MAX }), Type.Null()]),
};

export const NewAppBody = Type.Object(
  {
    name: fields.name,
    kind: StringEnum(['public', 'confidential'] as const),
    redirect_uris: fields.redirect_uris,
    homepage_url: Type.Optional(fields.homepage_url),
    logo_url: Type.Optional(fields.logo_url),
  },
  { additionalProperties: false },
);

export const AppChangesBody = Type.Object(
  {
    name: Type.Optional(fields.name),
    redirect_uris: Type.Optional(fields.redirect_uris),
    homepage_url: Type.Optional(fields.homepage_url),
    logo_url: Type.Optional(fields.logo_url),
  },
  { additionalProperties: false, minProperties: 1 },
);

export const AppResponse = Type.Object({ app: Type.Ref('App') }, { description: 'The app' });
export type AppBody = { app: AppView };
export const AppsResponse = Type.Object(
  { apps: Type.Array(Type.Ref('App')) },
  { description: "The caller's apps, newest first" },
);
export type AppsBody = { apps: AppView[] };

const secretField = Type.String({
  description: 'the client secret: shown this once, stored only as a hash',
  examples: ['ghcs_…'],
});
export const CreatedAppResponse = Type.Object(
  { app: Type.Ref('App'), client_secret: Type.Union([secretField, Type.Null()]) },
  { description: 'The new app; `client_secret` is null for a public app' },
);
export type CreatedAppBody = { app: AppView; client_secret: string | null };
export const RotatedSecretResponse = Type.Object(
  { client_secret: secretField },
  { description: 'The new secret; the old one no longer works' },
);
