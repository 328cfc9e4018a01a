import { TIER_DESCRIPTIONS, TIERS, TIER_NAMES } from '../../modules/keys/tiers.js';
import { API_KEY_HEADER } from '../api-key-auth.js';
import { ERRORS, PROBLEM_TYPE_BASE, problemType, type ErrorCode } from '../problem.js';
import type { TagObject } from './openapi-types.js';

/** The tag of a preview (`/v1`) operation: tags belong to one surface, and both have users, servers… */
export const v1Tag = (resource: string): string => `v1 ${resource}`;

const published = (name: string, description: string): TagObject => ({ name, description });
const preview = (resource: string, description: string): TagObject => ({
  name: v1Tag(resource),
  description: `Preview (\`/v1\`): ${description}`,
});

/** The tags operations are grouped by, in reference order. An operation's tag must be one of these. */
export const TAGS: TagObject[] = [
  published('Users', 'Public profiles of hub users, with their XP, level and activity counters.'),
  published('Leaderboards', 'The XP leaderboard: users ranked by total XP, ties by user id.'),
  published('Tournaments', 'Tournaments of the hub: upcoming, active and completed.'),
  published('Servers', 'Game servers that are online now, with their current map and player count.'),
  published('Forum', 'Recent forum threads and the posts of a thread, paginated with limit and offset.'),
  published('Achievements', 'The catalogue of achievements players can unlock, with their XP rewards.'),
  published(
    'Killboard',
    'Kills across CS2, CS 1.6 and Rust: the live kill feed and the top-fragger leaderboard.',
  ),
  published(
    'ELO',
    'Counter-Strike skill ladder (cs2, cs16), separate from the XP leaderboard: team Elo starting at 1000, logistic expectation on a 400-point scale, K 50 (higher for a player\u2019s first matches).',
  ),
  preview('Users', 'the signed-in user, and stats with ELO, kills and achievements per game.'),
  preview('Tournaments', 'tournaments of every status with filters, page by page.'),
  preview(
    'Servers',
    'every registered server with its region and uptime, the live status of one, and the commands its owner sends it.',
  ),
  preview(
    'Clans',
    'clans of one game with an owner, officers and members. Anyone reads public clans (an OAuth token with `clans:read`, or an API key); a user who granted `clans:write` creates clans, joins and leaves them, and runs the ones where they are owner or officer. Names and tags are unique per game without regard to case; a player belongs to one clan per game.',
  ),
  preview(
    'Economy',
    'an OAuth access token for a signed-in user: the user\u2019s coin balance and history, and coin transfers between users, exactly once per `Idempotency-Key`. An append-only double-entry ledger; balances never go below zero.',
  ),
  preview(
    'Events',
    'any credential: what happens on the hub, as events (`resource.action`, sortable ids) written in the same transaction as the change to one outbox, read live as Server-Sent Events (`GET /v1/events/stream`, resumable with `Last-Event-ID`) or pulled by cursor (`GET /v1/events?after=`). The same ids are the webhooks\u2019 `webhook-id`. Events are kept 30 days. The catalog of types is `GET /v1/events/types` and this document\u2019s `webhooks` section (each type\u2019s event object, data schema and example).',
  ),
  // Shown as "v1 Webhook endpoints": the reference lists the document's `webhooks` (the requests
  // the hub sends) in a section of their own called "Webhooks", and two of one name were a puzzle.
  {
    ...preview(
      'Webhooks',
      'endpoints that receive events as signed POSTs (Standard Webhooks). An app manages its webhooks with a token holding `webhooks:read` / `webhooks:write` (its own client_credentials token or a user\u2019s); an API key manages the webhooks of its owner. A webhook receives the event types it chose that its owner\u2019s credentials may pull from `GET /v1/events` (one rule for every channel): public events, the app\u2019s own, and private events of users who authorized the app with the event\u2019s scope; an API key\u2019s webhook, what the key pulls. Failed deliveries are retried for days, logged 30 days, and can be sent again or replayed. The requests an endpoint receives are listed under Webhooks.',
    ),
    'x-displayName': 'v1 Webhook endpoints',
  },
  published(
    'OAuth',
    'The OAuth 2.0 authorization server (`/api-platform/oauth`, metadata at `/.well-known/oauth-authorization-server`) for apps registered in the developer portal: the authorization code flow with PKCE S256 (required for every app), refresh tokens that rotate, client credentials for confidential apps, revocation (RFC 7009), introspection (RFC 7662), pushed authorization requests (RFC 9126) and OpenID Connect UserInfo. These endpoints speak the OAuth protocol: forms in (`application/x-www-form-urlencoded`, unknown parameters ignored as RFC 6749 §3.2 requires) and RFC 6749 error JSON (`error`, `error_description`) out, never problem documents, so any OAuth library can use them.',
  ),
  published(
    'Developer portal',
    'Session-authenticated routes under `/api-platform/developer`: hub accounts, self-service keys, OAuth apps and usage. The web pages live at `/api-platform/developer`.',
  ),
  published(
    'Ingest',
    'For hub operators\u2019 game servers, not third-party clients: log lines and JSON events pushed under `/api-platform/ingest`, authenticated by each server\u2019s ingest token. The XP, level, achievement and Elo rules applied to them are documented on each operation.',
  ),
  published(
    'Operations',
    'For the operator\u2019s probes and scrapers, at the service root: liveness (`/health`), readiness of the database and Redis (`/ready`) and Prometheus metrics (`/metrics`). No API key; no quota.',
  ),
];

const tierTable = [
  '| Tier | Requests per hour | Who |',
  '|---|---|---|',
  ...TIER_NAMES.map((t) => `| ${t} | ${TIERS[t].toLocaleString('en-US')} | ${TIER_DESCRIPTIONS[t]} |`),
].join('\n');

const errorTable = [
  '| Status | Code | Title |',
  '|---|---|---|',
  ...(Object.keys(ERRORS) as ErrorCode[]).map(
    (code) => `| ${ERRORS[code].status} | [\`${code}\`](${problemType(code)}) | ${ERRORS[code].title} |`,
  ),
].join('\n');

/** The `info.description` of the document: what a client must know beyond the operations. */
export const API_DESCRIPTION = `Public, read-only data of the gaming hub: profiles, XP, tournaments, game servers, forum,
achievements, a cross-game killboard and a Counter-Strike ELO ladder.

## Authentication
Every operation needs an API key in the \`${API_KEY_HEADER}\` header. Keys are created and revoked in the developer
portal (\`/api-platform/developer\`). A missing, unknown or revoked key gets \`401\` with
\`WWW-Authenticate: ApiKey header="${API_KEY_HEADER}"\`; a revoked key is refused from the very next request.

## Rate limits
Quotas count in fixed one-hour windows aligned to the UTC hour. A key's tier comes from its owner:

${tierTable}

The quota belongs to the account: all keys made in the developer portal by one account share one hourly count
(revoking a spent key and creating another gives no fresh quota). A key the operator issued with its own tier or
quota counts on its own. An account may create 10 keys in 24 hours, revoked ones included.

Every response to a valid key reports the quota: \`x-ratelimit-limit\`, \`x-ratelimit-remaining\`,
\`x-ratelimit-used\`, \`x-ratelimit-reset\` (epoch seconds when the window ends), and the IETF draft headers
\`RateLimit-Policy\` and \`RateLimit\`. Over quota, requests get \`429\` with \`Retry-After\` (seconds). If the
operator runs the service in fail-closed mode, a request that cannot be counted (the shared counter store is
unreachable) gets \`503 service_unavailable\` with \`Retry-After\`; by default it is counted per server instead.

## Caching and conditional requests
Responses carry an \`ETag\`. Send it back in \`If-None-Match\`: an unchanged resource answers \`304 Not Modified\`
with no body, and a \`304\` does not count against the quota. Data may be up to half a second old.

## Pagination
List operations take \`limit\`, bounded per operation and with a default; forum lists also take \`offset\`, the
number of records skipped. A page shorter than \`limit\` is the last one. Rankings break ties by user id ascending,
so pages are stable. A \`limit\` or \`offset\` outside its range is rejected with \`400\`, never clamped.

## Errors
Every error is an RFC 9457 \`application/problem+json\` document with \`type\`, \`title\`, \`status\`, \`detail\`,
\`instance\` (the request id, also sent as \`x-request-id\`) and a machine-readable \`code\`. Invalid parameters are
listed in \`errors\`, each with the allowed range. The \`type\` of a problem is a page explaining the code: when it
happens and what to do; [all error codes](${PROBLEM_TYPE_BASE.slice(0, -1)}) are listed on one page.

${errorTable}

Clients should branch on \`code\` (or on the status for codes they do not know); \`title\` and \`detail\` are for
people and may be reworded.

## Versioning and deprecation
The major version is part of the path (\`/api-platform/v1\`). Within v1 changes are additive only: new operations,
new optional parameters, new response fields and new error codes, so clients must ignore fields they do not know.
A breaking change ships as a new major version, and v1 keeps working for at least 6 months after it is announced.
An operation that is going away is first marked \`deprecated\` in this document, at least 6 months before removal.
`;
