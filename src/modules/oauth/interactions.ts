import { createHmac } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type Provider from 'oidc-provider';
import { errors, type Interaction, type InteractionResults } from 'oidc-provider';
import type { App } from '../../http/app-types.js';
import { ProblemError } from '../../http/problem.js';
import type { AccountsService } from '../accounts/service.js';
import {
  assertSameOrigin,
  CSRF_FIELD,
  loadAccount,
  sameToken,
  sessionIdOf,
  setSessionCookie,
} from '../portal/session-auth.js';
import { acceptForms, formOf, formRoute, pageCsp, pageReply, seeOther } from '../portal/pages/web-session.js';
import { consentPage, interactionSignInPage, type ClientView } from './pages.js';
import { INTERACTION_PATH } from './provider.js';

type Form = Record<string, string | undefined>;
const HIDE = { schema: { hide: true } } as const;
/**
 * No `form-action`: the consent form's answer redirects to the app's redirect URI on another origin,
 * and browsers apply `form-action` to the whole redirect chain (Chromium blocked the return).
 */
const INTERACTION_CSP = pageCsp({ formAction: false });
const SIGN_IN_ERRORS: Record<string, string> = {
  failed: 'The username or password is incorrect.',
  throttled: 'Too many failed sign-in attempts. Wait a few minutes and try again.',
};

/**
 * The sign-in and consent steps of an authorization request (oidc-provider "interactions"),
 * served in the portal's style. Sign-in is the hub account's own (same throttles, same session
 * cookie as the portal); a portal session already open signs the user in without a form. Every
 * form carries a token bound to the interaction and the portal session, and is refused when the
 * browser says it came from another site.
 */
export function interactionRoutes(provider: Provider, accounts: AccountsService, secret: string) {
  const csrfFor = (uid: string, sessionId: string | undefined) =>
    createHmac('sha256', secret)
      .update(`interaction:${uid}:${sessionId ?? ''}`)
      .digest('base64url');

  /** Replies 303 to `to`, keeping cookies the provider set on the raw response. */
  function redirect(reply: FastifyReply, to: string) {
    const providerCookies = reply.raw.getHeader('set-cookie');
    reply.raw.removeHeader('set-cookie');
    const ours = reply.getHeader('set-cookie');
    const all = [providerCookies, ours].flat().filter((c): c is string => typeof c === 'string');
    if (all.length > 0) reply.header('set-cookie', all);
    return seeOther(reply, to);
  }
  const page = (reply: FastifyReply, body: string) => pageReply(reply, body, 200, INTERACTION_CSP);

  async function clientView(clientId: unknown): Promise<ClientView> {
    const client = typeof clientId === 'string' ? await provider.Client.find(clientId) : undefined;
    if (!client) throw new ProblemError('not_found', 'The app of this request no longer exists.');
    return { name: client.clientName ?? client.clientId, homepage: client.clientUri };
  }

  async function finish(request: FastifyRequest, reply: FastifyReply, result: InteractionResults) {
    const to = await provider.interactionResult(request.raw, reply.raw, result, {
      mergeWithLastSubmission: false,
    });
    return redirect(reply, to);
  }

  /** The interaction of this browser (its cookie); an expired or foreign one is a 404 problem. */
  async function detailsOf(request: FastifyRequest, reply: FastifyReply): Promise<Interaction> {
    try {
      return await provider.interactionDetails(request.raw, reply.raw);
    } catch (err) {
      if (err instanceof errors.SessionNotFound) {
        throw new ProblemError(
          'not_found',
          'This sign-in request has expired or was started in another browser; start again from the app.',
        );
      }
      throw err;
    }
  }

  function checkForm(request: FastifyRequest, uid: string): Form {
    assertSameOrigin(request);
    const form = formOf(request);
    if (!sameToken(form[CSRF_FIELD], csrfFor(uid, sessionIdOf(request)))) {
      throw new ProblemError('csrf_failed', 'The form is out of date; go back to the app and start again.');
    }
    return form;
  }

  return (app: App): void => {
    acceptForms(app);

    app.get<{ Params: { uid: string }; Querystring: { error?: string } }>(
      `${INTERACTION_PATH}/:uid`,
      HIDE,
      async (request, reply) => {
        const details = await detailsOf(request, reply);
        const client = await clientView(details.params.client_id);
        const account = await loadAccount(accounts, request);
        const action = `${INTERACTION_PATH}/${details.uid}`;
        const sessionAccount = details.session?.accountId;
        if (details.prompt.name === 'login' || !account || String(account.id) !== sessionAccount) {
          // A portal session signs in without a form (the same hub account the portal uses).
          if (account && details.prompt.name === 'login') {
            return finish(request, reply, { login: { accountId: String(account.id) } });
          }
          const error = SIGN_IN_ERRORS[request.query.error ?? ''];
          return page(
            reply,
            interactionSignInPage({
              action: `${action}/sign-in`,
              csrf: csrfFor(details.uid, sessionIdOf(request)),
              client,
              account,
              ...(error ? { error } : {}),
            }),
          );
        }
        const grant = details.grantId ? await provider.Grant.find(details.grantId) : undefined;
        const granted = grant ? grant.getOIDCScope().split(' ').filter(Boolean) : [];
        const missing = (details.prompt.details.missingOIDCScope as string[] | undefined) ?? [];
        return page(
          reply,
          consentPage({
            action: `${action}/consent`,
            csrf: csrfFor(details.uid, sessionIdOf(request)),
            account,
            client,
            requested: missing,
            granted: granted.filter((s) => !missing.includes(s)),
          }),
        );
      },
    );

    app.post<{ Params: { uid: string } }>(
      `${INTERACTION_PATH}/:uid/sign-in`,
      formRoute('username', 'password'),
      async (request, reply) => {
        const details = await detailsOf(request, reply);
        const form = checkForm(request, details.uid);
        const back = `${INTERACTION_PATH}/${details.uid}`;
        try {
          const session = await accounts.signIn({
            username: (form.username ?? '').slice(0, 64),
            password: (form.password ?? '').slice(0, 1024),
            address: request.ip,
            ...(sessionIdOf(request) ? { currentSession: sessionIdOf(request) } : {}),
          });
          setSessionCookie(request, reply, session.id);
          return await finish(request, reply, { login: { accountId: String(session.account.id) } });
        } catch (err) {
          if (!(err instanceof ProblemError)) throw err;
          if (err.code === 'unauthenticated') return redirect(reply, `${back}?error=failed`);
          if (err.code === 'too_many_attempts') return redirect(reply, `${back}?error=throttled`);
          throw err;
        }
      },
    );

    app.post<{ Params: { uid: string } }>(
      `${INTERACTION_PATH}/:uid/consent`,
      formRoute('decision'),
      async (request, reply) => {
        const details = await detailsOf(request, reply);
        const form = checkForm(request, details.uid);
        const account = await loadAccount(accounts, request);
        const accountId = details.session?.accountId;
        if (details.prompt.name !== 'consent' || !account || String(account.id) !== accountId || !accountId) {
          throw new ProblemError('csrf_failed', 'Sign in again and repeat the request from the app.');
        }
        if (form.decision !== 'allow') {
          return finish(request, reply, {
            error: 'access_denied',
            error_description: 'The user denied the request.',
          });
        }
        const clientId = details.params.client_id as string;
        const grant =
          (details.grantId ? await provider.Grant.find(details.grantId) : undefined) ??
          new provider.Grant({ accountId, clientId });
        const promptDetails = details.prompt.details;
        const missingScope = promptDetails.missingOIDCScope as string[] | undefined;
        const missingClaims = promptDetails.missingOIDCClaims as string[] | undefined;
        if (missingScope) grant.addOIDCScope(missingScope.join(' '));
        if (missingClaims) grant.addOIDCClaims(missingClaims);
        const grantId = await grant.save();
        return finish(request, reply, { consent: { grantId } });
      },
    );
  };
}
