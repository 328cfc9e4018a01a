import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../http/app-types.js';
import type { AccountsService, NewSession } from '../accounts/service.js';
import { tierForOwner } from '../keys/tiers.js';
import { PORTAL_BODY_LIMIT } from './routes.js';
import { Credentials, portalOperation, SessionResponse, type SessionBody } from './schemas.js';
import {
  assertSameOrigin,
  clearSessionCookie,
  requireSessionHook,
  sessionIdOf,
  setSessionCookie,
  type PortalAccount,
} from './session-auth.js';

export function sessionBody(session: NewSession): SessionBody {
  const { account } = session;
  return {
    account: {
      id: account.id,
      username: account.username,
      subscription: account.subscription,
      partner: account.is_partner === 1,
      tier: tierForOwner(account),
    },
    csrf_token: session.csrfToken,
  };
}

const accountBody = (a: PortalAccount): SessionBody => ({
  account: {
    id: a.id,
    username: a.username,
    subscription: a.subscription,
    partner: a.isPartner,
    tier: a.tier,
  },
  csrf_token: a.csrfToken,
});

/**
 * Sign-up / sign-in / sign-out for API clients and scripts. Before a session exists there is no
 * token to check, so these accept only JSON (a cross-site form cannot send it without a CORS
 * preflight, which the service never grants) and refuse foreign Origin / Sec-Fetch-Site.
 */
export function portalAuthRoutes(accounts: AccountsService) {
  const requireSession = requireSessionHook(accounts);
  const started = (request: FastifyRequest, reply: FastifyReply, session: NewSession): SessionBody => {
    setSessionCookie(request, reply, session.id);
    return sessionBody(session);
  };

  return (app: App): void => {
    app.post(
      '/accounts',
      {
        bodyLimit: PORTAL_BODY_LIMIT,
        schema: portalOperation({
          operationId: 'developer_accounts_create',
          summary: 'Create a hub account',
          description:
            'Creates an account and signs it in (session cookie). Username: 3-32 letters, digits, `_`, `.`, `-`, unique ignoring case. Password: 10-128 characters, not containing the username, at least 4 different characters, not a well-known password. At most 5 sign-ups per address (an IPv6 /64) per hour, counting those refused for a taken username: past that, `429 too_many_attempts` with `Retry-After`.',
          body: Credentials,
          response: { 201: SessionResponse },
          errors: [
            'invalid_body',
            'csrf_failed',
            'conflict',
            'unprocessable',
            'payload_too_large',
            'too_many_attempts',
            'service_unavailable',
          ],
          session: false,
        }),
      },
      async (request, reply): Promise<SessionBody> => {
        assertSameOrigin(request);
        const session = await accounts.signUp({
          ...request.body,
          address: request.ip,
          currentSession: sessionIdOf(request),
        });
        reply.code(201);
        return started(request, reply, session);
      },
    );

    app.post(
      '/session',
      {
        bodyLimit: PORTAL_BODY_LIMIT,
        schema: portalOperation({
          operationId: 'developer_session_create',
          summary: 'Sign in',
          description:
            'Signs in and sets a fresh session cookie (any session id the client brought is discarded). Wrong username and wrong password give the same `401`. After 5 failures for one account, or 20 from one address (an IPv6 /64), within 15 minutes: `429 too_many_attempts` with `Retry-After`. Attempts are counted before the password is checked, so parallel attempts count too.',
          body: Credentials,
          response: { 200: SessionResponse },
          errors: [
            'invalid_body',
            'unauthenticated',
            'csrf_failed',
            'too_many_attempts',
            'payload_too_large',
            'service_unavailable',
          ],
          session: false,
        }),
      },
      async (request, reply): Promise<SessionBody> => {
        assertSameOrigin(request);
        const session = await accounts.signIn({
          ...request.body,
          address: request.ip,
          currentSession: sessionIdOf(request),
        });
        return started(request, reply, session);
      },
    );

    app.get(
      '/session',
      {
        onRequest: requireSession,
        schema: portalOperation({
          operationId: 'developer_session_get',
          summary: 'The signed-in account',
          description: 'The account behind the session cookie and its CSRF token.',
          response: { 200: SessionResponse },
          errors: ['unauthenticated'],
        }),
      },
      async (request): Promise<SessionBody> => {
        if (!request.account) throw new Error('session hook missing');
        return accountBody(request.account);
      },
    );

    app.delete(
      '/session',
      {
        onRequest: requireSession,
        schema: portalOperation({
          operationId: 'developer_session_delete',
          summary: 'Sign out',
          description: 'Ends the session on the server and clears the cookie.',
          response: { 204: Type.Null({ description: 'Signed out' }) },
          errors: ['unauthenticated', 'csrf_failed'],
        }),
      },
      async (request, reply) => {
        if (request.account) await accounts.signOut(request.account.sessionId);
        clearSessionCookie(request, reply);
        return reply.code(204).send();
      },
    );
  };
}
