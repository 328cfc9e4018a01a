import { guideHref, html } from '../portal/pages/html.js';
import { BASE, csrfField, listTable, notices, secretShownOnce, signedIn } from '../portal/pages/pages.js';
import type { PortalAccount } from '../portal/session-auth.js';
import type { AppView } from './schemas.js';

function fields(app: Partial<AppView>) {
  return html`<label for="name">App name</label>
    <input type="text" id="name" name="name" required maxlength="100" value="${app.name ?? ''}" />
    <label for="redirect_uris">Redirect URIs</label>
    <textarea id="redirect_uris" name="redirect_uris" rows="3" required aria-describedby="uris-hint">
${(app.redirect_uris ?? []).join('\n')}</textarea>
    <p class="hint" id="uris-hint">
      One per line, matched exactly: https, or plain http to 127.0.0.1, [::1] or localhost.
    </p>
    <label for="homepage_url">Homepage (optional)</label>
    <input
      type="url"
      id="homepage_url"
      name="homepage_url"
      maxlength="500"
      value="${app.homepage_url ?? ''}"
    />
    <label for="logo_url">Logo URL (optional)</label>
    <input type="url" id="logo_url" name="logo_url" maxlength="500" value="${app.logo_url ?? ''}" />`;
}

export function appsPage(
  account: PortalAccount,
  apps: AppView[],
  notice: { errors?: string[]; success?: string },
) {
  return signedIn(
    account,
    'OAuth apps',
    html`<h1>OAuth apps</h1>
      <p class="lead">
        Register an app to let hub users sign in with their account and grant it access (OAuth 2.0,
        authorization code with PKCE). The <a href="${guideHref('oauth-apps')}">OAuth apps guide</a> walks
        through a first sign-in.
      </p>
      ${notices(notice)}
      <section class="card" aria-labelledby="list-title">
        <h2 id="list-title">Your apps</h2>
        ${listTable({
          className: 'apps',
          empty: 'No apps yet.',
          columns: ['Name', 'Client ID', 'Type', 'Redirect URIs'],
          items: apps,
          row: (a) =>
            html`<td><a href="${BASE}/apps/${a.id}">${a.name}</a></td>
              <td class="mono">${a.client_id}</td>
              <td>${a.kind}</td>
              <td>${a.redirect_uris.join(', ')}</td>`,
        })}
      </section>
      <section class="card" aria-labelledby="create-title">
        <h2 id="create-title">Register an app</h2>
        <form method="post" action="${BASE}/apps/new">
          ${csrfField(account)} ${fields({})}
          <fieldset>
            <legend>Type</legend>
            <label
              ><input type="radio" name="kind" value="confidential" checked /> Confidential (a server that can
              keep a client secret)</label
            >
            <label
              ><input type="radio" name="kind" value="public" /> Public (a browser or mobile app, no
              secret)</label
            >
          </fieldset>
          <button type="submit">Register app</button>
        </form>
      </section>`,
  );
}

export function appPage(
  account: PortalAccount,
  app: AppView,
  notice: { errors?: string[]; success?: string; secret?: string },
) {
  return signedIn(
    account,
    app.name,
    html`<p><a href="${BASE}/apps">← My apps</a></p>
      <h1>${app.name}</h1>
      ${notices(notice)}
      ${
        notice.secret
          ? secretShownOnce(
              'Client secret',
              notice.secret,
              html`<strong>Copy the client secret now.</strong> It is shown only once; we store only a hash of
                it.`,
            )
          : ''
      }
      <section class="card" aria-labelledby="creds-title">
        <h2 id="creds-title">Credentials</h2>
        <p>Client ID: <code id="client-id">${app.client_id}</code> · ${app.kind}</p>
        <p class="hint">
          Authorize at <code>/api-platform/oauth/authorize</code>, exchange codes at
          <code>/api-platform/oauth/token</code>; discovery at <code>/.well-known/openid-configuration</code>.
        </p>
        ${
          app.kind === 'confidential'
            ? html`<form method="post" action="${BASE}/apps/${app.id}/secret" class="row">
                ${csrfField(account)}<button type="submit" class="secondary">Rotate client secret</button>
              </form>`
            : ''
        }
      </section>
      <section class="card" aria-labelledby="edit-title">
        <h2 id="edit-title">Settings</h2>
        <form method="post" action="${BASE}/apps/${app.id}/edit">
          ${csrfField(account)} ${fields(app)}
          <button type="submit">Save</button>
        </form>
      </section>
      <section class="card" aria-labelledby="delete-title">
        <h2 id="delete-title">Delete</h2>
        <p>Deleting the app revokes every token it holds: its users' next API call gets <code>401</code>.</p>
        <form method="post" action="${BASE}/apps/${app.id}/delete" class="row">
          ${csrfField(account)}<button type="submit" class="danger">Delete app</button>
        </form>
      </section>`,
  );
}
