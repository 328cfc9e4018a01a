/**
 * The OAuth scopes of the platform (DESIGN.md, "Identity and OAuth": `resource:action`), each with
 * the plain words the consent page shows. A /v1 route declares the scope it needs in its config;
 * the pipeline enforces it. This is the one list: the authorization server, the consent page, the
 * OpenAPI security scheme and the route checks all read it.
 */
export const SCOPES = {
  openid: 'Confirm to the app who you are on the hub (your user id)',
  identify: 'See your hub profile: username, avatar, level and when you joined',
  'identities:write': 'Link your Minecraft or Epic game identities to your hub account, and remove links',
  'stats:read': 'See your stats: XP, level, ELO, kills and achievements',
  'servers:read': 'See game servers and their live status',
  'servers:command': 'Send remote-console commands to game servers you operate',
  'chat:read': 'Read what players write in the chat of game servers you own or operate',
  'clans:read': 'See clans and their members',
  'clans:write': 'Create clans and manage the clans you run, join and leave clans',
  'tournaments:read': 'See tournaments',
  'economy:read': 'See your coin balance and transaction history',
  'economy:transfer': 'Send coins from your balance to other players',
  'webhooks:read': 'See the webhooks this app registered and their deliveries',
  'webhooks:write': 'Register, change and delete webhooks for this app',
  offline_access: 'Stay connected when you are away (a refresh token)',
} as const satisfies Record<string, string>;

export type Scope = keyof typeof SCOPES;
export const SCOPE_NAMES = Object.keys(SCOPES) as Scope[];

export const isScope = (value: string): value is Scope => Object.hasOwn(SCOPES, value);

/**
 * What an API key (and an app's own client_credentials token) may do on /v1 (app context): the
 * read scopes of public resources, and managing its own webhooks (those of the key's owner, or of
 * the app). User-context routes (a user's own data) need an OAuth access token.
 */
export const API_KEY_SCOPES: ReadonlySet<Scope> = new Set<Scope>([
  'stats:read',
  'servers:read',
  'clans:read',
  'tournaments:read',
  'webhooks:read',
  'webhooks:write',
]);
