import { Type, type Static, type TSchema } from 'typebox';
import { errorResponses, type ErrorCode } from '../../http/problem.js';
import { StringEnum, Timestamp, TrimmedName } from '../../http/schemas.js';
import { MAX_ORIGIN_LENGTH, MAX_ORIGINS, ORIGIN_PATTERN } from '../keys/origins.js';
import { TIER_NAMES } from '../keys/tiers.js';

export const PORTAL_TAG = 'Developer portal';

export const PortalKeySchema = Type.Object(
  {
    id: Type.Integer({ examples: [7] }),
    name: Type.String({ examples: ['my bot'] }),
    prefix: Type.String({
      description: 'first characters of the key, to tell keys apart',
      examples: ['ghk_a1B2c3'],
    }),
    tier: StringEnum(TIER_NAMES, {
      description: "the key's tier: its owner's plan unless an operator pinned one",
    }),
    quota: Type.Integer({ description: 'requests per hour allowed for this key now', examples: [100] }),
    created: Timestamp('when the key was created'),
    last_used: Type.Union([Timestamp('last request made with the key'), Type.Null()]),
    requests_this_hour: Type.Integer({
      minimum: 0,
      description:
        "requests counted in the current UTC hour against the quota this key spends: the account's, shared by all its keys",
    }),
    revoked: Type.Boolean(),
    revoked_at: Type.Union([Timestamp('when the key was revoked'), Type.Null()]),
    allowed_origins: Type.Array(Type.String(), {
      description:
        'browser origins the key may be used from (a page elsewhere gets `403 origin_not_allowed`); empty: any origin',
      examples: [['https://app.example.com']],
    }),
  },
  { $id: 'PortalKey', title: 'PortalKey', description: 'An API key as its owner sees it; never the secret' },
);
export type PortalKey = Static<typeof PortalKeySchema>;

export const AccountSchema = Type.Object(
  {
    id: Type.Integer(),
    username: Type.String(),
    subscription: StringEnum(['none', 'active', 'premium'] as const),
    partner: Type.Boolean(),
    tier: StringEnum(TIER_NAMES, { description: 'the tier every key that follows this account gets' }),
  },
  { $id: 'PortalAccount', title: 'PortalAccount' },
);
export type AccountBody = Static<typeof AccountSchema>;

export const SessionResponse = Type.Object(
  {
    account: Type.Ref('PortalAccount'),
    csrf_token: Type.String({ description: 'send it in the x-csrf-token header of every POST and DELETE' }),
  },
  { description: 'The signed-in account and its CSRF token' },
);
export type SessionBody = { account: AccountBody; csrf_token: string };

export const Credentials = Type.Object(
  {
    username: Type.String({ minLength: 1, maxLength: 64 }),
    // writeOnly: never echoed in an error (see errors.ts)
    password: Type.String({ minLength: 1, maxLength: 1024, writeOnly: true }),
  },
  { additionalProperties: false },
);

export const NewKeyBody = Type.Object(
  { name: TrimmedName(100, ['my bot']) },
  { additionalProperties: false },
);

export const KeyOriginsBody = Type.Object(
  {
    origins: Type.Array(
      Type.String({
        maxLength: MAX_ORIGIN_LENGTH,
        pattern: ORIGIN_PATTERN,
        description: 'an origin: `http` or `https`, `://` and a host (with its port), nothing after it',
      }),
      {
        maxItems: MAX_ORIGINS,
        description: `up to ${MAX_ORIGINS} origins, each as a browser sends \`Origin\` (scheme, host, port if not the default; one that is not written so is \`422\`); an empty list allows any origin`,
        examples: [['https://app.example.com', 'http://localhost:5173']],
      },
    ),
  },
  { additionalProperties: false },
);

export const MyKeysResponse = Type.Object(
  { keys: Type.Array(Type.Ref('PortalKey')) },
  { description: "The caller's keys, newest first" },
);
export type MyKeysBody = { keys: PortalKey[] };

export const CreatedKeyResponse = Type.Object(
  {
    key: Type.Ref('PortalKey'),
    secret: Type.String({
      description: 'the API key itself: shown this once, never again',
      examples: ['ghk_…'],
    }),
  },
  { description: 'The new key and its secret' },
);
export type CreatedKeyBody = { key: PortalKey; secret: string };

export const RevokedKeyResponse = Type.Object(
  { key: Type.Ref('PortalKey') },
  { description: 'The revoked key' },
);
export type RevokedKeyBody = { key: PortalKey };

export const KeyResponse = Type.Object(
  { key: Type.Ref('PortalKey') },
  { description: 'The key as it is now' },
);
export type KeyBody = { key: PortalKey };

/** Requests per status class, and their sum. */
const usageCounts = {
  '2xx': Type.Integer(),
  '3xx': Type.Integer(),
  '4xx': Type.Integer(),
  '429': Type.Integer(),
  '5xx': Type.Integer(),
  total: Type.Integer(),
};
const UsageCountsSchema = Type.Object(usageCounts);
export type UsageCounts = Static<typeof UsageCountsSchema>;

export const UsageHourSchema = Type.Object({ hour: Timestamp('start of the UTC hour'), ...usageCounts });
export type UsageHour = Static<typeof UsageHourSchema>;
export const UsageResponse = Type.Object(
  {
    usage: Type.Object({
      key_id: Type.Integer(),
      quota: Type.Integer({ description: 'requests per hour allowed now' }),
      hours: Type.Array(UsageHourSchema, { description: 'oldest first, one entry per hour, zeros included' }),
      totals: UsageCountsSchema,
    }),
  },
  { description: 'Requests per hour and status class' },
);
export type UsageBody = Static<typeof UsageResponse>;

/** Schema of a documented portal operation (its path is documented in full, like every other). */
export function portalOperation<
  B extends TSchema | undefined = undefined,
  P extends TSchema | undefined = undefined,
  Q extends TSchema | undefined = undefined,
>(spec: {
  operationId: string;
  summary: string;
  description: string;
  body?: B;
  params?: P;
  querystring?: Q;
  response: Record<number, TSchema>;
  errors: ErrorCode[];
  /** false: no session needed (sign-up, sign-in) */
  session?: boolean;
}) {
  const schema = {
    operationId: spec.operationId,
    tags: [PORTAL_TAG],
    summary: spec.summary,
    description: spec.description,
    security: spec.session === false ? [] : [{ session: [] }],
    body: spec.body as B,
    params: spec.params as P,
    querystring: spec.querystring as Q,
    response: { ...spec.response, ...errorResponses(...spec.errors, 'internal_error') },
  };
  // Fastify warns about explicitly undefined schema parts, so absent ones are removed.
  return Object.fromEntries(Object.entries(schema).filter(([, v]) => v !== undefined)) as typeof schema;
}
