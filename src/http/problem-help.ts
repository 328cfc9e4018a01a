import type { ErrorCode } from './problem.js';

export interface ProblemHelp {
  /** when the service answers with this code */
  when: string;
  /** what the client should do about it */
  fix: string;
  /** a typical `detail`, used in the OpenAPI examples */
  example: string;
}

/**
 * What each error code means for a client. Keyed by `ErrorCode`, so a code added to `ERRORS`
 * without an explanation here fails to compile. Served at `/api-platform/problems/<code>` (the
 * problem `type` URI) and used for the examples in the OpenAPI document.
 */
export const PROBLEM_HELP: Record<ErrorCode, ProblemHelp> = {
  invalid_parameter: {
    when: 'A path or query parameter is malformed (integers take decimal digits only: `10`, not `0x10`, `1e1` or `10.0`), outside its documented range, not one of its allowed values, or not known to the operation. Out-of-range values are rejected, never clamped.',
    fix: 'Read `errors`: each entry names the parameter (`in`, `name`) and says what it must be (`reason`). Correct the value; repeating the same request gives the same answer.',
    example: "query parameter 'limit' must be an integer from 1 to 100 (got 500)",
  },
  invalid_body: {
    when: 'The request body is not valid JSON, is nested deeper than the operation allows (arrays and objects inside each other; 32 levels at most), holds U+0000 (a NUL character) in a string or key (the detail says where, as a JSON pointer), or does not match the schema of the operation.',
    fix: 'Send a JSON body with `Content-Type: application/json` that matches the documented schema; `errors` lists the fields at fault.',
    example: "body parameter 'name' is required",
  },
  bad_request: {
    when: 'The request is not valid HTTP/1.1 and could not be read: a malformed request line or header, a body length that is both `Content-Length` and chunked, or more than one `Host` header (RFC 9112 §3.2). The connection is closed after the answer (`Connection: close`).',
    fix: 'Fix the client or proxy that builds the request; a well-formed request on a new connection is answered normally.',
    example: 'The request has 2 Host headers; HTTP/1.1 allows exactly one.',
  },
  invalid_amount: {
    when: 'The `amount` of a coin transfer is not a whole number of coins from 1 to the documented maximum (1,000,000 per transfer): zero, negative, a fraction, text, or too large.',
    fix: 'Send a whole number of coins from 1 to 1,000,000; to move more, make several transfers (each with its own Idempotency-Key).',
    example: "body parameter 'amount' must be at least 1 (got 0)",
  },
  missing_api_key: {
    when: 'The request has no `x-api-key` header. Every operation of the published API needs one.',
    fix: 'Create a key in the developer portal and send it in the `x-api-key` header. A key used from a web page is visible to its visitors: restrict it to your origins in the portal, and keep keys with larger quotas on your server.',
    example: 'Send your API key in the x-api-key header.',
  },
  invalid_api_key: {
    when: 'The `x-api-key` header holds something that is not a usable key: mistyped (its checksum does not match), unknown, or revoked. Revocation applies from the very next request.',
    fix: 'Check that the whole key was copied (`ghk_` followed by 38 letters and digits). If it was revoked, create a new key in the developer portal.',
    example: 'The API key is not valid or has been revoked.',
  },
  unauthenticated: {
    when: 'A developer-portal operation needs a signed-in hub account and the request carries no valid session.',
    fix: 'Sign in with your hub account, then repeat the request.',
    example: 'Sign in to manage your API keys.',
  },
  invalid_token: {
    when: 'An access token or session token is malformed, expired or revoked.',
    fix: 'Obtain a fresh token (refresh it, or sign in again) and repeat the request.',
    example: 'The access token has expired.',
  },
  invalid_server_token: {
    when: 'A game server called the ingest surface (`/api-platform/ingest/...`) without a token, with one that was never issued, with one its operator revoked (`hub servers remove`), or with a token a rotation replaced after its overlap ended.',
    fix: 'Send the server\u2019s current ingest token as `Authorization: Bearer <token>`; after `hub servers rotate-token` the new one (the old one works only until `previous_valid_until`). Nothing of the refused request was stored.',
    example: 'The ingest token is not valid or has been revoked.',
  },
  missing_token: {
    when: 'A preview (`/v1`) operation was called without `Authorization: Bearer <token>`. The preview surface takes an OAuth access token (acting for a user who granted your app) or an API key sent as a bearer token.',
    fix: 'Send `Authorization: Bearer <access token>` (from the OAuth flow) or `Authorization: Bearer ghk_…` (an API key, public data only).',
    example:
      'Send an OAuth access token or an API key in the Authorization header: `Authorization: Bearer <token>`.',
  },
  insufficient_scope: {
    when: 'The access token is valid but the user did not grant the scope this operation needs (the `WWW-Authenticate` header names it), or an API key was used for a scope API keys never hold.',
    fix: 'Send the user through the authorization flow again asking for the scope named in `WWW-Authenticate`; the consent screen asks only for what is new.',
    example: "This operation needs the 'economy:read' scope, which this credential was not granted.",
  },
  user_context_required: {
    when: 'The operation acts for a signed-in hub user (their profile, balance, clans) and was called with an API key or an app-only (client_credentials) token.',
    fix: 'Call it with an access token from the authorization code flow, issued for the user who granted your app.',
    example:
      'This operation acts for a signed-in hub user: call it with an OAuth access token the user granted, not an API key or an app token.',
  },
  idempotency_key_in_use: {
    when: 'A request with the same `Idempotency-Key` (from the same credential) is still being processed.',
    fix: 'Wait a moment (see `Retry-After`) and retry with the same key and body: you will get the first request\u2019s answer, and the operation happens once.',
    example: 'A request with this Idempotency-Key is still being processed; retry after it has finished.',
  },
  invalid_webhook_url: {
    when: 'The webhook URL is not an absolute `https` URL of at most 2048 characters without credentials, or its host can never receive a delivery: an address that is not public (private, loopback, link-local, CGNAT, cloud metadata, in any spelling), `localhost`, a name that resolves to such an address, or a name that does not resolve. Plain `http` and private targets are allowed only on a hub started with WEBHOOKS_ALLOW_PRIVATE_TARGETS=true (local tests, private deployments).',
    fix: 'Give the public `https://` URL your receiver listens on; to test with a receiver on your own machine, run the hub with WEBHOOKS_ALLOW_PRIVATE_TARGETS=true.',
    example: 'A webhook URL must use https.',
  },
  unknown_event_type: {
    when: 'An entry of `events` is neither `*` nor an event type of the catalog.',
    fix: 'Pick types from `GET /v1/events/types`, or `*` for every type.',
    example: 'Unknown event type: match.exploded.',
  },
  idempotency_key_reused: {
    when: 'The `Idempotency-Key` was already used, within the last 24 hours, for a request with a different method, path or body.',
    fix: 'Use a new, unique key for each new operation; reuse a key only to retry the very same request.',
    example:
      'This Idempotency-Key was already used with a different request; use a new key for a new operation.',
  },
  self_transfer: {
    when: 'A coin transfer names the sender as its recipient (`to_user_id` is the signed-in user).',
    fix: 'Send coins to another user: `to_user_id` must be someone else\u2019s user id.',
    example: 'You cannot send coins to yourself: to_user_id is your own user id (7).',
  },
  recipient_not_found: {
    when: 'The `to_user_id` of a coin transfer is not a hub user.',
    fix: 'Check the recipient\u2019s user id (from `GET /v1/users/...` or the user\u2019s profile); nothing was moved.',
    example: 'There is no user with id 99999 to send coins to.',
  },
  insufficient_funds: {
    when: 'The sender\u2019s balance is smaller than the `amount` of the transfer. Balances never go below zero; nothing was moved.',
    fix: 'Read `GET /v1/economy/balance` and send at most that many coins, or earn more first (match wins and achievements mint coins).',
    example: 'Your balance is 40 coins; this transfer needs 250.',
  },
  forbidden: {
    when: 'The credentials are valid but do not allow this action, for example a resource that belongs to another account.',
    fix: 'Use credentials that own the resource or hold the needed permission; repeating the request unchanged will not help.',
    example: 'This API key belongs to another account.',
  },
  clan_role_required: {
    when: 'A clan action that needs a higher role than the caller holds in that clan: settings and invites need an officer or the owner; kicking needs a higher role than the member kicked (an officer kicks members, the owner kicks anyone); promoting, demoting, transferring ownership and disbanding need the owner. Someone outside the clan holds no role.',
    fix: 'Ask the clan\u2019s owner or an officer (`GET /v1/clans/{id}` lists members and roles); repeating the request unchanged will not help.',
    example: 'Changing the settings of clan 12 needs the owner or an officer; you are a member.',
  },
  server_operator_required: {
    when: 'Sending a command to a game server, or reading its command audit, by a user who is neither the server\u2019s owner nor an operator the owner granted (`hub servers grant`). The server itself is public (`GET /v1/servers`).',
    fix: 'Ask the hub operator to grant your hub account on that server; repeating the request unchanged will not help.',
    example: 'Only the owner of server 3 and the operators it granted may send it commands.',
  },
  clan_closed: {
    when: 'Joining, inviting to or accepting an invite of a clan whose join policy is `closed`: it takes no new members.',
    fix: 'Ask an officer to change the join policy to `open` or `invite` (`PUT /v1/clans/{id}/settings`).',
    example: 'Clan 12 is closed to new members.',
  },
  clan_invite_required: {
    when: 'Joining a clan whose join policy is `invite` without a pending invite for you.',
    fix: 'Ask an officer or the owner to invite you (`POST /v1/clans/{id}/invites`), then join or accept the invite.',
    example: 'Clan 12 takes members by invite only, and you have no pending invite.',
  },
  csrf_failed: {
    when: 'A state-changing request from the developer portal did not carry a valid CSRF token.',
    fix: 'Reload the portal page to get a fresh token and submit again.',
    example: 'The CSRF token is missing or does not match.',
  },
  origin_not_allowed: {
    when: "A browser called the API from a web page whose origin is not on the key's list of allowed origins (set in the developer portal). Keys without a list may be used from any origin.",
    fix: "Add the page's origin (scheme, host and port, as in the `Origin` header) to the key's allowed origins in the developer portal, or call from an allowed page.",
    example:
      "This API key may be used only from its allowed origins; 'https://evil.example' is not one of them.",
  },
  not_found: {
    when: 'No route matches the path. Published operations live under `/api-platform/v1`.',
    fix: 'Check the path against the API reference at `/api-platform/docs`.',
    example: 'No route matches GET /api-platform/v1/userz/42',
  },
  user_not_found: {
    when: 'No hub user has the requested id.',
    fix: 'Check the id. User ids appear in other responses, such as `user_id` in leaderboards and the kill feed.',
    example: 'There is no user with id 42.',
  },
  server_not_found: {
    when: 'No registered game server has the requested id (or it was removed by its operator).',
    fix: 'Check the id; `GET /v1/servers` lists every registered server, online or not, with its id.',
    example: 'There is no game server with id 42.',
  },
  command_not_found: {
    when: 'No queued command of this server has the requested id: it was never issued, or it belongs to another server (a server\u2019s plugin sees only its own commands, a caller only the commands of the server in the path).',
    fix: 'Use the `id` the `202` answer (or the plugin\u2019s long-poll) gave, with the same server.',
    example: 'Server 3 has no command with id 812.',
  },
  thread_not_found: {
    when: 'No forum thread has the requested id.',
    fix: 'Check the id; `GET /forum/threads` lists the threads that exist.',
    example: 'There is no forum thread with id 42.',
  },
  key_not_found: {
    when: 'No API key with this id belongs to the signed-in account.',
    fix: 'List your keys to find the right id; a key of another account is reported the same way.',
    example: 'There is no API key with id 42 on this account.',
  },
  clan_not_found: {
    when: 'No clan has the requested id, or the clan is private and you are neither a member nor invited (a private clan is reported exactly like a missing one).',
    fix: 'Check the id; `GET /v1/clans` lists the public clans and yours.',
    example: 'There is no clan with id 12.',
  },
  clan_member_not_found: {
    when: 'The user named in the path (or you, when leaving) is not a member of the clan.',
    fix: 'Read the member list (`GET /v1/clans/{id}`) and use a member\u2019s `user_id`.',
    example: 'User 42 is not a member of clan 12.',
  },
  clan_invite_not_found: {
    when: 'Accepting, declining or revoking an invite that is not pending: never sent, already accepted, declined or revoked.',
    fix: 'List your pending invites with `GET /v1/clans/invites`.',
    example: 'There is no pending invite of user 42 to clan 12.',
  },
  webhook_not_found: {
    when: 'No webhook with this id belongs to the caller: the app of the OAuth token, or the owner of the API key (another owner\u2019s webhook is reported exactly like a missing one).',
    fix: 'List your webhooks with `GET /v1/webhooks` and use one of their ids.',
    example: 'There is no webhook with id 12.',
  },
  delivery_not_found: {
    when: 'The webhook has no delivery with this id (deliveries are kept 30 days).',
    fix: 'List the webhook\u2019s deliveries with `GET /v1/webhooks/{id}/deliveries`.',
    example: 'Webhook 12 has no delivery with id 345.',
  },
  method_not_allowed: {
    when: 'The path exists but not for this HTTP method. The published API is read-only: its operations are GET.',
    fix: 'Use one of the methods listed in the `Allow` response header.',
    example: 'POST is not allowed on /api-platform/v1/users/42',
  },
  not_acceptable: {
    when: 'The `Accept` header asks only for representations the service cannot produce.',
    fix: 'Accept `application/json` (errors come as `application/problem+json`).',
    example: 'This resource is only available as application/json.',
  },
  request_timeout: {
    when: 'The request did not arrive in time: its headers must arrive within 10 seconds and the whole request, body included, within 30 seconds of the connection starting to send it. The connection is closed after the answer (`Connection: close`).',
    fix: 'Send the request (and its body) without pauses; for large ingest batches, send smaller batches.',
    example:
      'The request was not received in time: headers must arrive within 10 s and the whole request within 30 s.',
  },
  conflict: {
    when: 'The request conflicts with the current state of the resource, for example a name that is already taken.',
    fix: 'Read the current state, resolve the conflict, and repeat the request.',
    example: 'A key with this name already exists.',
  },
  clan_name_taken: {
    when: 'Another clan of the same game already has this name, compared without regard to case (`Night Owls` and `night owls` are the same name). Names are unique per game only.',
    fix: 'Choose another name.',
    example: "A cs2 clan named 'Night Owls' already exists.",
  },
  clan_tag_taken: {
    when: 'Another clan of the same game already has this tag, compared without regard to case.',
    fix: 'Choose another tag.',
    example: "A cs2 clan with the tag 'OWL' already exists.",
  },
  already_in_clan: {
    when: 'Creating, joining or accepting an invite to a clan while you are already in a clan of the same game (a user belongs to at most one clan per game), or inviting someone who is already a member of this clan.',
    fix: 'Leave your current clan of that game first (`POST /v1/clans/{id}/leave`; an owner transfers ownership or disbands the clan first).',
    example: 'You are already in clan 7 for cs2; leave it before joining another cs2 clan.',
  },
  clan_full: {
    when: 'Joining or accepting an invite to a clan that has reached its maximum number of members. Checked in the same transaction that adds the member, so concurrent joins never overfill a clan.',
    fix: 'Ask an officer to raise `max_members` (`PUT /v1/clans/{id}/settings`), or wait for a place to free up.',
    example: 'Clan 12 is full (50 of 50 members).',
  },
  clan_owner_must_transfer: {
    when: 'The owner tried to leave the clan. A clan always has an owner.',
    fix: 'Transfer ownership to another member first (`POST /v1/clans/{id}/transfer`), or disband the clan (`DELETE /v1/clans/{id}`).',
    example: 'The owner cannot leave clan 12; transfer ownership to another member or disband the clan.',
  },
  clan_role_conflict: {
    when: 'A role change that does not apply to the member: promoting someone who is not a plain member, demoting someone who is not an officer, transferring ownership or kicking yourself.',
    fix: 'Read the member\u2019s current role (`GET /v1/clans/{id}`) and pick the action that fits it; to leave, use `POST /v1/clans/{id}/leave`.',
    example: 'User 42 is already an officer of clan 12.',
  },
  clan_max_members_too_low: {
    when: 'Setting `max_members` below the number of members the clan has now.',
    fix: 'Choose a maximum at least equal to `member_count`, or remove members first.',
    example: 'Clan 12 has 31 members; max_members cannot be lower than that.',
  },
  key_limit_reached: {
    when: 'Creating an API key when the account already has the maximum number of active keys (10).',
    fix: 'Revoke a key you no longer use in the developer portal, then create the new one.',
    example: 'This account already has 10 active keys; revoke one before creating another.',
  },
  payload_too_large: {
    when: 'The request body is larger than the operation accepts: 16 KiB on the developer portal, 16 MiB on ingest, 1 MiB elsewhere. Bodies announced too large by `Content-Length` are refused before they are read, and the connection is closed.',
    fix: 'Send a smaller body.',
    example: 'Request body is too large',
  },
  uri_too_long: {
    when: 'A path segment is longer than 256 characters; no route of the service takes one that long.',
    fix: 'Check the path against the API reference at `/api-platform/docs`.',
    example: 'A path segment is longer than 256 characters.',
  },
  unsupported_media_type: {
    when: "The body's `Content-Type` is not one the operation accepts.",
    fix: 'Send the body as `application/json`.',
    example: 'Unsupported Media Type: text/plain',
  },
  unprocessable: {
    when: 'The body is well-formed but its values break a rule of the operation.',
    fix: 'Read `detail`, change the values, and repeat the request.',
    example: 'The webhook URL must use https.',
  },
  rate_limited: {
    when: "The key's hourly quota is used up (see the tier table; each key has its own quota). Windows are fixed hours aligned to the UTC hour; `304 Not Modified` answers don't count.",
    fix: 'Wait the number of seconds in `Retry-After` (the window resets at `x-ratelimit-reset`, epoch seconds). Cache responses and revalidate with `If-None-Match`; if you need more, ask for a higher tier.',
    example: "This key's authenticated tier allows 1000 requests per hour; the quota resets in 1260 s.",
  },
  too_many_attempts: {
    when: 'Too many attempts in a short time: 5 failed sign-ins for one account or 20 from one address in 15 minutes, or 5 sign-ups from one address in an hour (an IPv6 address counts by its /64). Attempts sent in parallel count too.',
    fix: 'Wait the number of seconds in `Retry-After` before trying again.',
    example: 'Too many failed sign-in attempts. Wait 15 minute(s) and try again.',
  },
  key_creation_limited: {
    when: 'The account has created 10 API keys in the last 24 hours; revoked keys count too. Without this limit, revoking a spent key and making another would buy a fresh hourly quota without end.',
    fix: 'Wait the number of seconds in `Retry-After`, or keep using an existing key: revoke and recreate keys only when one has leaked.',
    example:
      'An account can create 10 keys in 24 hours, revoked ones included; the next one can be created in 312 minute(s).',
  },
  headers_too_large: {
    when: 'The request line and headers together are larger than the server accepts (16 KiB). The connection is closed after the answer (`Connection: close`).',
    fix: 'Send fewer or shorter headers (large cookies are the usual cause) and a shorter URL.',
    example: 'The request line and headers are larger than 16 KiB.',
  },
  link_code_invalid: {
    when: 'A link code that is unknown, already used or expired (codes are valid 10 minutes and work once); the three cases get this one answer, so a code cannot be probed.',
    fix: 'Make a new code (in the portal, `POST /v1/me/link-codes`, or in game through the server\u2019s plugin) and enter it within 10 minutes.',
    example: 'The link code is unknown, used or expired.',
  },
  identity_link_not_found: {
    when: 'Removing an identity link the signed-in user does not have.',
    fix: 'List the user\u2019s links (`GET /v1/me/links`) and use a platform and id from there.',
    example: 'You have no minecraft link for 069a79f4-44e9-4726-a5be-fca90e38aaf5.',
  },
  identity_linked: {
    when: 'Linking a Minecraft or EOS identity that is already linked to another hub account. Nothing changed, and the code was not used up.',
    fix: 'The account holding the link removes it first (portal, or `DELETE /v1/me/links/{platform}/{id}`); then link again.',
    example: 'This minecraft identity is already linked to another hub account.',
  },
  rcon_not_configured: {
    when: 'A command to a game server that has no remote console set up: no RCON password registered, or a game without a supported remote-console protocol. Nothing was sent.',
    fix: 'Ask the hub operator to set the server\u2019s RCON password (`hub servers set-rcon ID --password …`); then repeat the request with a new Idempotency-Key.',
    example:
      'Server 3 has no RCON password set up; the hub operator sets one with `hub servers set-rcon 3 --password …`.',
  },
  rcon_unreachable: {
    when: 'The game server\u2019s remote console could not be reached: the connection was refused or there is no route to it (the server is down, or its RCON port is wrong or firewalled). The command was not run; the attempt is in the server\u2019s audit.',
    fix: 'Check that the game server is running and that its RCON port is open to the hub; retry later with a new Idempotency-Key (the key of a 5xx answer is released, so the same key also works).',
    example:
      'Server 3 (127.0.0.1:27015) refused the remote-console connection: is it running, and is its RCON port right?',
  },
  rcon_auth_failed: {
    when: 'The game server refused the RCON password the hub holds for it (it was changed on the server, or registered wrong). The command was not run. Game servers ban an address after repeated failures, so the hub does not retry.',
    fix: 'Ask the hub operator to set the server\u2019s current RCON password (`hub servers set-rcon`); do not retry until then.',
    example:
      'Server 3 refused the RCON password the hub has for it; the hub operator must set the current one (hub servers set-rcon).',
  },
  rcon_protocol_error: {
    when: 'The game server answered, but not in its remote-console protocol (a different service on that port, a damaged or oversized packet, or the connection closed mid-answer). The command may or may not have run.',
    fix: 'Check that the registered RCON port is the game server\u2019s remote-console port and that the game matches; read the server\u2019s audit before retrying a command that must not run twice.',
    example: 'Server 3 answered outside the Source RCON protocol: the connection closed before the reply.',
  },
  command_expired: {
    when: 'A plugin posted the result of a command that was not acknowledged within its time to live (`PLUGIN_COMMAND_TTL`, 60 s after it was issued by default): the command is final as `expired`, its caller was told so, and a late result is not recorded.',
    fix: 'Nothing to retry for the plugin; the caller issues the command again if it still wants it run. Acknowledge commands as soon as they have run.',
    example: 'Command 812 expired at 2026-11-20T18:05:11.000Z, before its result arrived.',
  },
  token_superseded: {
    when: 'A token rotation was asked with the previous ingest token, which is still accepted during the overlap but already replaced.',
    fix: 'Rotate with the current token (the one the last rotation returned).',
    example: 'This token was already replaced by a rotation; rotate with the current token.',
  },
  rcon_timeout: {
    when: 'The game server did not finish answering the command within the time limit (`RCON_TIMEOUT_MS`, 5 s by default). The command may have run anyway.',
    fix: 'Read the server\u2019s audit (`GET /v1/servers/{id}/commands`) or its state before retrying a command that must not run twice; retry later if the server is busy.',
    example: 'Server 3 did not answer the command within 5 s; it may have run anyway.',
  },
  internal_error: {
    when: 'The server failed to complete the request. The cause is logged with the request id and never exposed.',
    fix: 'Retry with exponential backoff. If it persists, report the `instance` value (the request id, also in the `x-request-id` header).',
    example: 'The server could not complete the request; it has been logged.',
  },
  service_unavailable: {
    when: 'The service cannot answer for a moment, for example while a database is unreachable, during a restart, or (when the operator chose to fail closed) while the shared rate-limit store is unreachable.',
    fix: 'Retry with exponential backoff, honouring `Retry-After` when it is present.',
    example: 'The server could not complete the request; it has been logged.',
  },
};
