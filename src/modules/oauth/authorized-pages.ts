import type { App } from '../../http/app-types.js';
import { ProblemError } from '../../http/problem.js';
import type { AccountsService } from '../accounts/service.js';
import type { AppsRepo } from '../apps/repo.js';
import type { PortalFlashes } from '../portal/flash.js';
import { html, layout } from '../portal/pages/html.js';
import { formRoute, pageReply, seeOther, signedInPage } from '../portal/pages/web-session.js';
import { PORTAL_PREFIX, type PortalAccount } from '../portal/session-auth.js';
import { SCOPES, isScope } from '../../http/scopes.js';
import { authorizedAppsOf, type AuthorizedApp } from './authorized-apps.js';
import type { OAuthServer } from './server.js';

const BASE = PORTAL_PREFIX;
const HIDE = { schema: { hide: true } } as const;
const when = (iso: string | null) => (iso ? iso.slice(0, 16).replace('T', ' ') : 'never');

function authorizedAppsPage(
  account: PortalAccount,
  list: AuthorizedApp[],
  success: string | undefined,
): string {
  return layout(
    { title: 'Authorized apps', username: account.username, csrfToken: account.csrfToken, base: BASE },
    html`<h1>Authorized apps</h1>
      <p class="lead">Apps you allowed to use your hub account. Revoking one signs it out at once.</p>
      ${success ? html`<div class="alert success" role="status">${success}</div>` : ''}
      ${
        list.length === 0
          ? html`<p class="empty">You have not authorized any app.</p>`
          : list.map(
              (a) =>
                html`<section class="card" data-client-id="${a.client_id}">
                  <h2>
                    ${a.homepage_url ? html`<a href="${a.homepage_url}" rel="noopener noreferrer">${a.name}</a>` : a.name}
                  </h2>
                  <ul class="scopes">
                    ${a.scopes.map((s) => html`<li data-scope="${s}">${isScope(s) ? SCOPES[s] : s}</li>`)}
                  </ul>
                  <p class="hint">
                    Allowed ${when(a.granted)} UTC · last used
                    ${when(a.last_used)}${a.last_used ? ' UTC' : ''}
                  </p>
                  <form method="post" action="${BASE}/authorized-apps/${a.client_id}/revoke" class="row">
                    <input type="hidden" name="_csrf" value="${account.csrfToken}" />
                    <button type="submit" class="danger">Revoke access</button>
                  </form>
                </section>`,
            )
      }`,
  );
}

/** The "Authorized apps" page and its revoke form (post/redirect/get). */
export function authorizedAppPages(
  oauth: OAuthServer,
  apps: AppsRepo,
  accounts: AccountsService,
  flashes: PortalFlashes,
  now: () => number,
) {
  const session = signedInPage(accounts);
  return (app: App): void => {
    app.get('/authorized-apps', HIDE, async (request, reply) => {
      const account = await session(request, reply);
      if (!account) return reply;
      const flash = await flashes.take(account.sessionId, (request.query as Record<string, string>).flash);
      const list = await authorizedAppsOf(oauth, apps, account.id, now());
      return pageReply(
        reply,
        authorizedAppsPage(account, list, flash?.kind === 'notice' ? flash.success : undefined),
      );
    });

    app.post<{ Params: { clientId: string } }>(
      '/authorized-apps/:clientId/revoke',
      formRoute(),
      async (request, reply) => {
        const account = await session(request, reply);
        if (!account) return reply;
        const revoked = await oauth.revokeGrantsOf(account.id, request.params.clientId.slice(0, 64));
        if (revoked === 0) throw new ProblemError('not_found', 'You have not authorized that app.');
        const flash = await flashes.put(account.sessionId, { kind: 'notice', success: 'Access revoked.' });
        return seeOther(reply, `${BASE}/authorized-apps?flash=${flash}`);
      },
    );
  };
}
