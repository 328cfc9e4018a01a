// The README's examples, type-checked by `tsc` (never run): a renamed path or field breaks the build.
import {
  HubApiError,
  HubClient,
  HubErrorCode,
  HubOAuth,
  WebhookVerifier,
  type AuthorizationRequest,
} from '../src/index.js';

export async function quickStart(baseUrl: string, apiKey: string) {
  const hub = new HubClient({ baseUrl, apiKey });
  const ladder = await hub.get('/api-platform/v1/stats/elo', {
    params: { query: { game: 'cs2', limit: 10 } },
  });
  for (const entry of ladder.leaderboard) console.log(entry.rank, entry.name, entry.rating);
  for await (const thread of hub.paginate('/api-platform/v1/forum/threads', {
    params: { query: { limit: 50 } },
  }))
    console.log(thread.id, thread.title);
  try {
    await hub.get('/api-platform/v1/users/{id}', { params: { path: { id: 42 } } });
  } catch (error) {
    if (error instanceof HubApiError && error.code === HubErrorCode.UserNotFound) console.log('no such user');
    else throw error;
  }
  await hub.post('/v1/economy/transfer', {
    body: { to_user_id: 42, amount: 5 },
    idempotencyKey: 'order-1234',
    maxRetries: 0,
  });
}

export async function oauthFlow(
  baseUrl: string,
  callbackUrl: string,
  save: (token?: string) => void,
  savedCursor?: string,
) {
  const oauth = new HubOAuth({ baseUrl, clientId: 'app_x', redirectUri: 'https://app.example/callback' });
  const pending = await oauth.authorizationUrl({ scope: ['identify', 'economy:read'] });
  const tokens = await oauth.handleCallback(callbackUrl, pending);
  const hub = new HubClient({
    baseUrl,
    oauth: { tokens, client: oauth, onTokens: (fresh) => save(fresh.refreshToken) },
  });
  const me = await hub.get('/v1/users/@me');
  const stream = hub.events({ types: ['match.ended'], ...(savedCursor ? { after: savedCursor } : {}) });
  for await (const event of stream) {
    console.log(event.type, me);
    savedCursor = stream.lastEventId;
  }
  for await (const event of hub.paginate('/v1/events', { params: { query: { limit: 500 } } }))
    console.log(event.id);
}

export async function webhook(rawBody: string, headers: Record<string, string>) {
  const verifier = new WebhookVerifier(['whsec_AAAA']);
  const event = await verifier.parse(rawBody, headers);
  if (event.type === 'economy.transfer.created') console.log(event.data.amount);
}

export async function browserApp() {
  const baseUrl = 'https://hub.example.com';
  const hub = new HubClient({ baseUrl, apiKey: 'ghk_…' });
  const ladder = await hub.get('/api-platform/v1/stats/elo', {
    params: { query: { game: 'cs2', limit: 10 } },
  });
  document.body.append(ladder.leaderboard.map((e) => `${e.rank}. ${e.name}`).join(', '));
  const oauth = new HubOAuth({ baseUrl, clientId: 'app_…', redirectUri: `${location.origin}/callback` });
  if (location.pathname === '/callback') {
    const pending = JSON.parse(sessionStorage.getItem('hub-oauth') ?? '{}') as AuthorizationRequest;
    const tokens = await oauth.handleCallback(location.href, pending);
    const me = await new HubClient({ baseUrl, oauth: { tokens, client: oauth } }).get('/v1/users/@me');
    console.log(me.data.username);
  } else {
    const pending = await oauth.authorizationUrl({ scope: ['identify'] });
    sessionStorage.setItem('hub-oauth', JSON.stringify(pending));
    location.assign(pending.url);
  }
}
