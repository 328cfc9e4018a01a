import type { ExpressionBuilder } from 'kysely';
import type { FastifyRequest } from 'fastify';
import type { Database } from '../../db/types.js';

/**
 * Whose webhooks: an app's (OAuth tokens of the app, its developer in the portal), or a user's
 * (their API keys, which act for no app). Exactly one is set.
 */
export type WebhookOwner = { appId: number; userId?: undefined } | { userId: number; appId?: undefined };

/** The owner a /v1 call acts for: the token's app, else the API key's owner. */
export function ownerOfRequest(request: FastifyRequest): WebhookOwner | undefined {
  const principal = request.principal;
  if (principal?.appId !== null && principal?.appId !== undefined) return { appId: principal.appId };
  const keyOwner = request.apiKey?.userId;
  return keyOwner === null || keyOwner === undefined ? undefined : { userId: keyOwner };
}

/** The `where` of the owner's webhooks. */
export const ownedBy = (owner: WebhookOwner) => (eb: ExpressionBuilder<Database, 'webhooks'>) =>
  owner.appId !== undefined
    ? eb('webhooks.app_id', '=', owner.appId)
    : eb('webhooks.user_id', '=', owner.userId);
