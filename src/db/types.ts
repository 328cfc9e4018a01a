import type { Generated } from 'kysely';

/** Timestamps are epoch milliseconds (integers) in every table. */
type Millis = number;
/** Booleans are stored as 0/1 integers so one schema serves SQLite and PostgreSQL. */
type Flag = number;

export interface UsersTable {
  id: Generated<number>;
  username: string;
  avatar: string;
  steam_id: string | null;
  total_xp: Generated<number>;
  level: Generated<number>;
  achievements_count: Generated<number>;
  subscription: Generated<'none' | 'active' | 'premium'>;
  is_partner: Generated<Flag>;
  joined_at: Millis;
  /** scrypt hash of the portal password; null: the account cannot sign in to the portal */
  password_hash: string | null;
}

export interface ApiKeysTable {
  id: Generated<number>;
  user_id: number | null;
  name: string;
  prefix: string;
  hash: string;
  /** null: the tier follows the owner's subscription; set: an operator's choice */
  tier: 'free' | 'authenticated' | 'premium' | 'partner' | null;
  quota: number | null;
  created_at: Millis;
  last_used_at: Millis | null;
  revoked_at: Millis | null;
  /** browser origins the key may be used from, space-separated; null: any */
  allowed_origins: string | null;
}

export interface TournamentsTable {
  id: Generated<number>;
  name: string;
  game: string;
  status: 'upcoming' | 'active' | 'completed';
  max_teams: number;
  starts_at: Millis;
}

export interface TournamentParticipantsTable {
  tournament_id: number;
  user_id: number;
}

export interface GameServersTable {
  id: Generated<number>;
  name: string;
  game: string;
  ip: string;
  port: number;
  query_port: number | null;
  status: 'online' | 'offline';
  players: Generated<number>;
  max_players: Generated<number>;
  map: Generated<string>;
  created_at: Millis;
  /** SHA-256 of the server's ingest token (0004_ingest) */
  token_hash: string | null;
  removed_at: Millis | null;
  /** consecutive failed status queries; `offline` after POLL_OFFLINE_AFTER */
  poll_failures: Generated<number>;
  last_seen_at: Millis | null;
  /** where the server is, from REGIONS (0012_server_region_polls) */
  region: Generated<string>;
  /** how long the last answered status query took */
  last_latency_ms: number | null;
  /** the hub user who runs the server and may send it commands (0016_server_commands) */
  owner_user_id: number | null;
  /** the remote-console port; null: the game port */
  rcon_port: number | null;
  /** the RCON password sealed by src/engines/secret-box.ts, never the plaintext; null: no RCON */
  rcon_password: string | null;
  /** how commands reach it: its remote console, or the plugin's queue (0021_server_plugin) */
  command_channel: Generated<CommandChannel>;
  /** the last plugin heartbeat; fresh ones keep it online without a status query */
  heartbeat_at: Millis | null;
  /** the token a rotation replaced, accepted until `previous_token_until` */
  previous_token_hash: string | null;
  previous_token_until: Millis | null;
}

export type CommandChannel = 'rcon' | 'plugin';

export type PluginCommandStatus = 'pending' | 'delivered' | 'ok' | 'error' | 'expired';

/** A command queued for a plugin-channel server (0021_server_plugin). */
export interface PluginCommandsTable {
  id: Generated<number>;
  server_id: number;
  user_id: number;
  app_id: number | null;
  command: string;
  status: PluginCommandStatus;
  output: string | null;
  duration_ms: number | null;
  deliveries: Generated<number>;
  issued_at: Millis;
  expires_at: Millis;
  delivered_at: Millis | null;
  completed_at: Millis | null;
}

/** A user the owner granted the right to send commands to a server (0016_server_commands). */
export interface ServerOperatorsTable {
  server_id: number;
  user_id: number;
  granted_at: Millis;
}

export type ServerCommandStatus = 'ok' | 'timeout' | 'unreachable' | 'auth_failed' | 'error' | 'expired';

/** The audit of every command sent to a server, whatever its result (0016_server_commands). */
export interface ServerCommandsTable {
  id: Generated<number>;
  server_id: number;
  user_id: number;
  /** the OAuth app it was sent through */
  app_id: number | null;
  command: string;
  status: ServerCommandStatus;
  /** the start of the output, or what went wrong */
  output: string;
  duration_ms: number;
  created_at: Millis;
}

export interface ForumCategoriesTable {
  id: Generated<number>;
  name: string;
}

export interface ForumThreadsTable {
  id: Generated<number>;
  category_id: number;
  author_id: number;
  title: string;
  views: Generated<number>;
  created_at: Millis;
}

export interface ForumPostsTable {
  id: Generated<number>;
  thread_id: number;
  author_id: number;
  content: string;
  created_at: Millis;
}

export interface AchievementsTable {
  id: Generated<number>;
  code: string;
  name: string;
  description: string;
  icon: string;
  category: string;
  xp_reward: number;
}

export interface UserAchievementsTable {
  user_id: number;
  achievement_id: number;
  unlocked_at: Millis;
}

export interface KillsTable {
  id: Generated<number>;
  game: string;
  server_id: number;
  match_id: number | null;
  killer_user_id: number;
  killer_steam_id: string;
  killer_name: string;
  victim_user_id: number;
  victim_steam_id: string;
  victim_name: string;
  weapon: string;
  headshot: Flag;
  distance: number;
  round_number: number;
  occurred_at: Millis;
}

/** Kills and headshots per player, game and UTC day (day = days since the epoch). */
export interface FragDailyTable {
  user_id: number;
  game: string;
  day: number;
  kills: number;
  headshots: number;
}

/** Running totals per top-frag period; week and month are aligned to `meta.frag_window_day`. */
export interface FragTotalsTable {
  period: 'week' | 'month' | 'all';
  game: string;
  user_id: number;
  kills: number;
  headshots: number;
}

/** All-time deaths per (player, game), kept by ingest beside `frag_totals` (0018_death_totals). */
export interface DeathTotalsTable {
  user_id: number;
  game: string;
  deaths: number;
}

export interface MatchesTable {
  id: Generated<number>;
  game: string;
  server_id: number | null;
  map: string;
  team1_score: number;
  team2_score: number;
  /** 1 or 2; 0 for a draw */
  winner: number;
  ended_at: Millis;
}

export interface EloRatingsTable {
  user_id: number;
  game: string;
  rating: number;
  games: number;
  wins: number;
  updated_at: Millis;
}

export interface EloHistoryTable {
  id: Generated<number>;
  match_id: number;
  user_id: number;
  game: string;
  rating_before: number;
  rating_after: number;
  occurred_at: Millis;
}

export interface MetaTable {
  key: string;
  value: string;
}

/** A portal session; only the SHA-256 of the random session id is stored. */
export interface SessionsTable {
  id_hash: string;
  user_id: number;
  csrf_token: string;
  created_at: Millis;
  expires_at: Millis;
}

/** Requests per key, UTC hour (epoch ms of its start) and status class. */
export interface KeyUsageTable {
  key_id: number;
  hour: Millis;
  class: '2xx' | '3xx' | '4xx' | '429' | '5xx';
  count: number;
}

export interface Database {
  users: UsersTable;
  api_keys: ApiKeysTable;
  tournaments: TournamentsTable;
  tournament_participants: TournamentParticipantsTable;
  game_servers: GameServersTable;
  forum_categories: ForumCategoriesTable;
  forum_threads: ForumThreadsTable;
  forum_posts: ForumPostsTable;
  achievements: AchievementsTable;
  user_achievements: UserAchievementsTable;
  kills: KillsTable;
  frag_daily: FragDailyTable;
  frag_totals: FragTotalsTable;
  death_totals: DeathTotalsTable;
  matches: MatchesTable;
  elo_ratings: EloRatingsTable;
  elo_history: EloHistoryTable;
  meta: MetaTable;
  sessions: SessionsTable;
  key_usage: KeyUsageTable;
  ingest_events: IngestEventsTable;
  ingest_state: IngestStateTable;
  player_counters: PlayerCountersTable;
  xp_events: XpEventsTable;
  level_ups: LevelUpsTable;
  idempotency_keys: IdempotencyKeysTable;
  portal_flashes: PortalFlashesTable;
  ingest_lines: IngestLinesTable;
  oauth_apps: OAuthAppsTable;
  oauth_store: OAuthStoreTable;
  economy_accounts: EconomyAccountsTable;
  economy_transactions: EconomyTransactionsTable;
  economy_entries: EconomyEntriesTable;
  events: EventsTable;
  clans: ClansTable;
  clan_members: ClanMembersTable;
  clan_invites: ClanInvitesTable;
  server_polls: ServerPollsTable;
  server_operators: ServerOperatorsTable;
  server_commands: ServerCommandsTable;
  plugin_commands: PluginCommandsTable;
  webhooks: WebhooksTable;
  webhook_secrets: WebhookSecretsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
  identity_links: IdentityLinksTable;
  link_codes: LinkCodesTable;
}

/** A Minecraft or EOS player id attached to a hub user (0022_identity_links). */
export interface IdentityLinksTable {
  platform: 'minecraft' | 'eos';
  player_id: string;
  user_id: number;
  name: string;
  server_id: number | null;
  linked_at: Millis;
}

/** A one-use link code, by its SHA-256: a user's (typed in game) or a player's (typed in the portal). */
export interface LinkCodesTable {
  code_hash: string;
  user_id: number | null;
  platform: 'minecraft' | 'eos' | null;
  player_id: string | null;
  name: string | null;
  server_id: number | null;
  created_at: Millis;
  expires_at: Millis;
}

/**
 * A message shown once on the page a portal form redirects to (0009_portal_flashes): encrypted with
 * a key derived from the owner's cookie, which is never stored, so a row alone reveals nothing.
 */
export interface PortalFlashesTable {
  id: string;
  /** SHA-256 of the owner: the session id, or the sign-in form token before there is a session */
  owner_hash: string;
  payload: string;
  expires_at: Millis;
}

/** One row per accepted JSON event: (server, client id) makes a resent batch count once. */
export interface IngestEventsTable {
  server_id: number;
  client_id: string;
  received_at: Millis;
}

/** Log-stream state of one server (round, score, sides), JSON, updated with each batch. */
export interface IngestStateTable {
  server_id: number;
  state: string;
  updated_at: Millis;
}

/** Per-player counters that achievement rules read. */
export interface PlayerCountersTable {
  user_id: number;
  counter: string;
  value: number;
}

export interface XpEventsTable {
  id: Generated<number>;
  user_id: number;
  reason: string;
  amount: number;
  occurred_at: Millis;
}

export interface LevelUpsTable {
  id: Generated<number>;
  user_id: number;
  from_level: number;
  to_level: number;
  occurred_at: Millis;
}

/** A state-changing /v1 request's Idempotency-Key and, once answered, the response to replay. */
export interface IdempotencyKeysTable {
  owner: string;
  key: string;
  fingerprint: string;
  state: 'in_flight' | 'done';
  status: number | null;
  content_type: string | null;
  body: string | null;
  created_at: Millis;
  lease_until: Millis;
  expires_at: Millis;
}

/** A coin account (0014_economy): one per user, plus the issuance account (`system`). */
export interface EconomyAccountsTable {
  id: Generated<number>;
  user_id: number | null;
  system: string | null;
  /** the sum of the account's entries, kept for the overdraft check */
  balance: number;
  updated_at: Millis;
}

export type EconomyKind = 'transfer' | 'reward' | 'grant';

/** One movement of coins; append-only. */
export interface EconomyTransactionsTable {
  id: Generated<number>;
  kind: EconomyKind;
  from_user_id: number | null;
  to_user_id: number;
  amount: number;
  note: string | null;
  reason: string | null;
  idempotency_owner: string | null;
  idempotency_key: string | null;
  created_at: Millis;
}

/** One leg of a movement: the legs of a movement sum to zero; append-only. */
export interface EconomyEntriesTable {
  id: Generated<number>;
  transaction_id: number;
  account_id: number;
  amount: number;
  balance_after: number;
  created_at: Millis;
}

/** A log line already applied (0006_ingest_lines): a resent batch is recognised by it. */
export interface IngestLinesTable {
  server_id: number;
  /** see modules/ingest/line-dedupe.ts */
  fingerprint: string;
  /** the line's own time, epoch ms; the row is dropped when it leaves the ingest window */
  at: Millis;
}

/** The outbox (0015_events): every change worth telling, in commit order. */
export interface EventsTable {
  id: Generated<number>;
  type: string;
  created_at: Millis;
  /** the event's `data` object as JSON */
  data: string;
  /** null: a public event; else only readers acting for this user see it */
  user_id: number | null;
  /** null: not app-private; else only this app sees it */
  app_id: number | null;
  /** the scope a reader needs, if any */
  scope: string | null;
}

/** An app registered in the portal: an OAuth client (0011_oauth). */
export interface OAuthAppsTable {
  id: Generated<number>;
  client_id: string;
  owner_id: number;
  name: string;
  kind: 'public' | 'confidential';
  /** JSON array of exact redirect URIs */
  redirect_uris: string;
  homepage_url: string | null;
  logo_url: string | null;
  /** SHA-256 (hex) of a confidential app's client secret; null for a public app */
  secret_hash: string | null;
  created_at: Millis;
  updated_at: Millis;
}

/** What oidc-provider stores (grants, codes, tokens, sessions, interactions), one row per (model, id). */
export interface OAuthStoreTable {
  model: string;
  id: string;
  /** the provider's payload as JSON */
  payload: string;
  grant_id: string | null;
  uid: string | null;
  client_id: string | null;
  account_id: string | null;
  expires_at: Millis | null;
  consumed_at: Millis | null;
  last_used_at: Millis | null;
}

export type ClanJoinPolicy = 'open' | 'invite' | 'closed';
export type ClanVisibility = 'public' | 'private';
export type ClanRole = 'owner' | 'officer' | 'member';

/** A clan of one game (0013_clans); `member_count` moves with its member rows, in one transaction. */
export interface ClansTable {
  id: Generated<number>;
  game: string;
  name: string;
  tag: string;
  description: string;
  join_policy: ClanJoinPolicy;
  visibility: ClanVisibility;
  max_members: number;
  member_count: number;
  created_at: Millis;
  updated_at: Millis;
}

/** A user's membership; `game` repeats the clan's so a user is in at most one clan per game. */
export interface ClanMembersTable {
  clan_id: number;
  game: string;
  user_id: number;
  role: ClanRole;
  joined_at: Millis;
}

/** A pending invitation, removed when accepted, declined or revoked. */
export interface ClanInvitesTable {
  clan_id: number;
  user_id: number;
  invited_by: number | null;
  created_at: Millis;
}

/** Status queries of one server in one UTC hour (0012_server_region_polls): how many, how many answered. */
export interface ServerPollsTable {
  server_id: number;
  /** epoch ms of the start of the UTC hour */
  hour: Millis;
  ok: number;
  total: number;
}

/** A webhook endpoint (0017_webhooks): owned by an app, or by a user for their API keys. */
export interface WebhooksTable {
  id: Generated<number>;
  app_id: number | null;
  user_id: number | null;
  url: string;
  /** JSON array of event types, or `*` for every type */
  events: string;
  description: string | null;
  enabled: Generated<Flag>;
  /** 'gone' (answered 410), 'failing' (5 days of failures), 'owner' (turned off by its owner) */
  disabled_reason: string | null;
  created_at: Millis;
  updated_at: Millis;
  /** first failure of the current run of failures; null after a success */
  failing_since: Millis | null;
}

/** A `whsec_` signing secret; the current one has no expiry, a rotated one signs until `expires_at`. */
export interface WebhookSecretsTable {
  id: Generated<number>;
  webhook_id: number;
  secret: string;
  created_at: Millis;
  expires_at: Millis | null;
}

export type WebhookDeliveryStatus = 'pending' | 'delivering' | 'succeeded' | 'failed' | 'dead';

/** One event to send to one webhook; claimed by a worker by `next_attempt_at`. */
export interface WebhookDeliveriesTable {
  id: Generated<number>;
  webhook_id: number;
  /** outbox position (events.id) */
  event_id: number;
  status: WebhookDeliveryStatus;
  attempts: Generated<number>;
  /** when it is due (null: nothing left to do) */
  next_attempt_at: Millis | null;
  claimed_until: Millis | null;
  claimed_by: string | null;
  last_status_code: number | null;
  last_latency_ms: number | null;
  /** the first bytes of the last response body */
  last_response: string | null;
  last_error: string | null;
  created_at: Millis;
  delivered_at: Millis | null;
}

/** Every send of a delivery: the delivery log (30 days). */
export interface WebhookAttemptsTable {
  id: Generated<number>;
  delivery_id: number;
  webhook_id: number;
  /** 1 for the first send */
  attempt: number;
  started_at: Millis;
  status_code: number | null;
  latency_ms: number | null;
  /** JSON object of the response headers kept */
  response_headers: string | null;
  response_excerpt: string | null;
  error: string | null;
}
