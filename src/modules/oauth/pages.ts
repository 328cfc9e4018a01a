import type { ErrorOut, KoaContextWithOIDC } from 'oidc-provider';
import { SCOPES, isScope } from '../../http/scopes.js';
import { html, layout } from '../portal/pages/html.js';
// the pages of the authorization server share the portal's look (and its stylesheet)
import { alert, BASE, signInFields } from '../portal/pages/pages.js';
import { PAGE_CSP } from '../portal/pages/web-session.js';

/** The portal account signed in in this browser: the header names it and offers to sign out. */
export interface SignedInView {
  username: string;
  csrfToken: string;
}

const layoutFor = (title: string, account: SignedInView | undefined) =>
  account
    ? { title, username: account.username, csrfToken: account.csrfToken, base: BASE }
    : { title, base: BASE };

export interface ClientView {
  name: string;
  homepage?: string | undefined;
}

export function interactionSignInPage(options: {
  action: string;
  csrf: string;
  client: ClientView;
  error?: string;
  /** a portal session of another account than the one this request started with */
  account?: SignedInView | undefined;
}): string {
  return layout(
    layoutFor('Sign in', options.account),
    html`<section class="card narrow" aria-labelledby="title">
      <h1 id="title">Sign in to continue to ${options.client.name}</h1>
      <p class="lead">Use your Gaming Hub account. ${options.client.name} never sees your password.</p>
      ${alert('error', options.error)}
      <form method="post" action="${options.action}" novalidate>
        <input type="hidden" name="_csrf" value="${options.csrf}" />
        ${signInFields()}
        <button type="submit" class="full">Sign in</button>
      </form>
    </section>`,
  );
}

const scopeWords = (scope: string) => (isScope(scope) ? SCOPES[scope] : scope);

export function consentPage(options: {
  action: string;
  csrf: string;
  account: SignedInView;
  client: ClientView;
  /** what this request adds */
  requested: string[];
  /** what the user already granted the app */
  granted: string[];
}): string {
  const { client } = options;
  return layout(
    layoutFor('Authorize app', options.account),
    html`<section class="card narrow" aria-labelledby="title">
      <h1 id="title">Authorize ${client.name}?</h1>
      <p class="lead">
        Signed in as <strong>${options.account.username}</strong>.
        ${client.homepage ? html`<a href="${client.homepage}" rel="noopener noreferrer">${client.name}</a>` : client.name}
        would like to:
      </p>
      <ul class="scopes" id="requested-scopes">
        ${options.requested.map((s) => html`<li data-scope="${s}">${scopeWords(s)}</li>`)}
      </ul>
      ${
        options.granted.length > 0
          ? html`<p class="hint">You already allowed it to:</p>
              <ul class="scopes granted">
                ${options.granted.map((s) => html`<li data-scope="${s}">${scopeWords(s)}</li>`)}
              </ul>`
          : ''
      }
      <form method="post" action="${options.action}" class="row">
        <input type="hidden" name="_csrf" value="${options.csrf}" />
        <button type="submit" name="decision" value="allow">Allow</button>
        <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
      </form>
      <p class="hint">
        You can take this back at any time under
        <a href="${BASE}/authorized-apps">Authorized apps</a>.
      </p>
    </section>`,
  );
}

/** The provider's routes a browser opens; every other endpoint is called by an app's code. */
const BROWSER_ROUTES = new Set(['authorization', 'resume']);

/**
 * oidc-provider's error page (an authorization request that cannot go back to the app). The
 * provider asks for it whenever a request prefers HTML; an app's call to the token, revocation,
 * introspection, PAR or userinfo endpoint gets its RFC 6749 JSON error whatever it accepts, as the
 * document says.
 */
export function renderOAuthError(ctx: KoaContextWithOIDC, out: ErrorOut): void {
  if (!BROWSER_ROUTES.has(ctx.oidc.route)) {
    ctx.type = 'json';
    ctx.body = out;
    return;
  }
  ctx.type = 'html';
  ctx.set('content-security-policy', PAGE_CSP);
  ctx.body = layout(
    { title: 'Authorization failed', base: BASE },
    html`<section class="card narrow" aria-labelledby="title">
      <h1 id="title">The app’s request could not be completed</h1>
      <div class="alert error" role="alert">
        <p><code>${out.error}</code></p>
        ${out.error_description ? html`<p>${out.error_description}</p>` : ''}
      </div>
      <p>Go back to the app and try again; if it keeps failing, tell the app’s developer.</p>
    </section>`,
  );
}
