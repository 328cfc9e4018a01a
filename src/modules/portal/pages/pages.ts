import { TIERS } from '../../keys/tiers.js';
import type { PortalKey, UsageBody } from '../schemas.js';
import { PORTAL_PREFIX, type PortalAccount } from '../session-auth.js';
import { SERIES, usageChart } from './chart.js';
import { guideHref, html, layout, type SafeHtml } from './html.js';

/** Where the portal's pages live: the prefix its routes are registered under. */
export const BASE = PORTAL_PREFIX;

const date = (iso: string | null) => (iso ? iso.slice(0, 16).replace('T', ' ') : 'never');
/** `2026-11-21 19:00`; a phone drops the year and puts the time under the day, keeping columns narrow. */
const hourCell = (iso: string) =>
  html`<time datetime="${iso}"
    ><span class="year">${iso.slice(0, 5)}</span>${iso.slice(5, 10)}
    <span class="time">${iso.slice(11, 16)}</span></time
  >`;
export const alert = (kind: 'error' | 'success' | 'warn', text: string | undefined) =>
  text ? html`<div class="alert ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">${text}</div>` : '';
export const signedIn = (a: PortalAccount, title: string, body: SafeHtml) =>
  layout({ title, username: a.username, csrfToken: a.csrfToken, base: BASE }, body);

/** The CSRF field of a signed-in account's form (the session's token, checked on POST). */
export const csrfField = (a: PortalAccount) =>
  html`<input type="hidden" name="_csrf" value="${a.csrfToken}" />`;

/** What the last form did: its errors and its success, each as an alert (none when there is none). */
export const notices = (notice: { errors?: string[]; success?: string }) =>
  html`${alert('error', notice.errors?.join(' '))}${alert('success', notice.success)}`;

/**
 * A list as a table in its scrolling wrapper, or `empty` when there is nothing to list: `columns`
 * are the header cells (SafeHtml for a hidden label), `row` an item's cells.
 */
export function listTable<T>(options: {
  className: string;
  empty: string;
  columns: (string | SafeHtml)[];
  items: readonly T[];
  row: (item: T) => SafeHtml;
}): SafeHtml {
  if (options.items.length === 0) return html`<p class="empty">${options.empty}</p>`;
  return html`<div class="table-wrap">
    <table class="${options.className}">
      <thead>
        <tr>
          ${options.columns.map((column) => html`<th scope="col">${column}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${options.items.map(
          (item) =>
            html`<tr>
              ${options.row(item)}
            </tr>`,
        )}
      </tbody>
    </table>
  </div>`;
}

/** A secret shown once: the warning, then a read-only field with a copy button. */
export const secretShownOnce = (label: string, secret: string, warning: SafeHtml) =>
  html`<div class="alert warn" role="status">${warning}</div>
    <section class="card">
      <label for="secret">${label}</label>
      <div class="secret">
        <input type="text" id="secret" value="${secret}" readonly spellcheck="false" autocomplete="off" />
        <button type="button" data-copy="secret">Copy</button>
      </div>
      <p class="hint" id="secret-status" role="status" aria-live="polite"></p>
    </section>`;

/**
 * The username and password fields of a sign-in form: the portal and the authorization server's
 * sign-in step (OAuth) ask for the same account the same way. `username` refills the field after
 * a failed attempt.
 */
export const signInFields = (username = '') =>
  html`<label for="username">Username</label>
    <input
      type="text"
      id="username"
      name="username"
      autocomplete="username"
      required
      maxlength="64"
      value="${username}"
      autofocus
    />
    <label for="password">Password</label>
    <input
      type="password"
      id="password"
      name="password"
      autocomplete="current-password"
      required
      maxlength="1024"
    />`;

export function signInPage(options: { csrf: string; error?: string; username?: string }): string {
  return layout(
    { title: 'Sign in', base: BASE },
    html`<section class="card narrow" aria-labelledby="title">
      <h1 id="title">Sign in</h1>
      <p class="lead">Use your Gaming Hub account to manage API keys.</p>
      ${alert('error', options.error)}
      <form method="post" action="${BASE}/sign-in" novalidate>
        <input type="hidden" name="_csrf" value="${options.csrf}" />
        ${signInFields(options.username)}
        <button type="submit" class="full">Sign in</button>
      </form>
      <p class="hint">No account yet? <a href="${BASE}/sign-up">Create one</a>.</p>
    </section>`,
  );
}

export function signUpPage(options: { csrf: string; errors?: string[]; username?: string }): string {
  return layout(
    { title: 'Create an account', base: BASE },
    html`<section class="card narrow" aria-labelledby="title">
      <h1 id="title">Create a developer account</h1>
      <p class="lead">
        Free keys allow ${TIERS.free} requests per hour; a hub subscription raises every key's quota.
      </p>
      ${
        options.errors?.length
          ? html`<div class="alert error" role="alert">
              <ul>
                ${options.errors.map((e) => html`<li>${e}</li>`)}
              </ul>
            </div>`
          : ''
      }
      <form method="post" action="${BASE}/sign-up" novalidate>
        <input type="hidden" name="_csrf" value="${options.csrf}" />
        <label for="username">Username</label>
        <input
          type="text"
          id="username"
          name="username"
          autocomplete="username"
          required
          minlength="3"
          maxlength="32"
          aria-describedby="username-hint"
          value="${options.username ?? ''}"
          autofocus
        />
        <p class="hint" id="username-hint">3 to 32 letters, digits, underscores, dots or hyphens.</p>
        <label for="password">Password</label>
        <input
          type="password"
          id="password"
          name="password"
          autocomplete="new-password"
          required
          minlength="10"
          maxlength="128"
          aria-describedby="password-hint"
        />
        <p class="hint" id="password-hint">At least 10 characters, not containing your username.</p>
        <button type="submit" class="full">Create account</button>
      </form>
      <p class="hint">Already registered? <a href="${BASE}/sign-in">Sign in</a>.</p>
    </section>`,
  );
}

export function keysPage(
  account: PortalAccount,
  keys: PortalKey[],
  notice: { errors?: string[]; success?: string; keyName?: string } = {},
): string {
  const active = keys.filter((k) => !k.revoked).length;
  // On a phone each row becomes a card of label/value pairs: the labels are repeated on the cells,
  // and explicit roles keep the table a table for screen readers once CSS changes its display.
  const rows = keys.map(
    (k) =>
      html`<tr role="row">
        <td role="cell" data-label="Name"><a href="${BASE}/keys/${k.id}">${k.name}</a></td>
        <td role="cell" data-label="Key" class="mono">${k.prefix}…</td>
        <td role="cell" data-label="Tier">
          <span>${k.tier} <span class="muted">(${k.quota.toLocaleString('en-US')}/h)</span></span>
        </td>
        <td role="cell" data-label="Created (UTC)">${date(k.created)}</td>
        <td role="cell" data-label="Last used (UTC)">${date(k.last_used)}</td>
        <td role="cell" data-label="This hour">${k.requests_this_hour}</td>
        <td role="cell" data-label="Status">
          ${k.revoked ? html`<span class="badge revoked">revoked</span>` : html`<span class="badge active">active</span>`}
        </td>
        <td role="cell" class="actions">
          <a href="${BASE}/keys/${k.id}">Usage</a>${
            k.revoked
              ? ''
              : html`<a href="${BASE}/keys/${k.id}/origins" aria-label="Allowed origins of ${k.name}"
                    >Origins</a
                  ><a href="${BASE}/keys/${k.id}/revoke" aria-label="Revoke ${k.name}">Revoke</a>`
          }
        </td>
      </tr>`,
  );
  return signedIn(
    account,
    'API keys',
    html`<h1>API keys</h1>
      <p class="lead">
        Signed in as <strong>${account.username}</strong> · plan <strong>${account.subscription}</strong> ·
        keys get the <span class="badge">${account.tier}</span> tier
        (${TIERS[account.tier].toLocaleString('en-US')} requests per hour each).
      </p>
      ${alert('error', notice.errors?.join(' '))}${alert('success', notice.success)}
      <section class="card" aria-labelledby="create-title">
        <h2 id="create-title">Create a key</h2>
        <form method="post" action="${BASE}/keys/new" class="row">
          <input type="hidden" name="_csrf" value="${account.csrfToken}" />
          <div class="grow">
            <label for="name">Key name</label>
            <input
              type="text"
              id="name"
              name="name"
              required
              maxlength="100"
              placeholder="e.g. Discord bot"
              aria-describedby="name-hint"
              value="${notice.keyName ?? ''}"
            />
          </div>
          <button type="submit">Create key</button>
        </form>
        <p class="hint" id="name-hint">
          ${active} of 10 active keys used. Send a key in the <code>x-api-key</code> header; see the
          <a href="/api-platform/docs">API reference</a> and the guide
          <a href="${guideHref('using-the-api')}">Using the published API</a>.
        </p>
      </section>
      <section class="card" aria-labelledby="list-title">
        <h2 id="list-title">Your keys</h2>
        ${
          keys.length === 0
            ? html`<p class="empty">No keys yet. Create one above to call the API.</p>`
            : html`<div class="table-wrap">
                <table class="keys" role="table">
                  <thead role="rowgroup">
                    <tr role="row">
                      <th role="columnheader" scope="col">Name</th>
                      <th role="columnheader" scope="col">Key</th>
                      <th role="columnheader" scope="col">Tier</th>
                      <th role="columnheader" scope="col">Created (UTC)</th>
                      <th role="columnheader" scope="col">Last used (UTC)</th>
                      <th role="columnheader" scope="col">This hour</th>
                      <th role="columnheader" scope="col">Status</th>
                      <th role="columnheader" scope="col"><span class="visually-hidden">Actions</span></th>
                    </tr>
                  </thead>
                  <tbody role="rowgroup">
                    ${rows}
                  </tbody>
                </table>
              </div>`
        }
      </section>`,
  );
}

export function newKeyPage(account: PortalAccount, key: PortalKey, secret: string, apiBase: string): string {
  return signedIn(
    account,
    'Key created',
    html`<h1>Key “${key.name}” created</h1>
      <div class="alert warn" role="status">
        <strong>Copy this key now.</strong> It is shown only once; we store only a hash of it. If you lose it,
        revoke it and create another.
      </div>
      <section class="card" aria-labelledby="secret-label">
        <label id="secret-label" for="secret">Your API key</label>
        <div class="secret">
          <input type="text" id="secret" value="${secret}" readonly spellcheck="false" autocomplete="off" />
          <button type="button" data-copy="secret">Copy</button>
        </div>
        <p class="hint" id="secret-status" role="status" aria-live="polite"></p>
        <h2>Try it</h2>
        <pre><code>curl -H "x-api-key: ${secret}" ${apiBase}/api-platform/v1/leaderboards</code></pre>
        <a class="button secondary" href="${BASE}/keys">I have stored it — back to my keys</a>
      </section>`,
  );
}

export function revokePage(account: PortalAccount, key: PortalKey): string {
  return signedIn(
    account,
    'Revoke key',
    html`<section class="card narrow" aria-labelledby="title">
      <h1 id="title">Revoke “${key.name}”?</h1>
      <p>
        Key <code>${key.prefix}…</code> stops working immediately: the next request made with it gets
        <code>401</code>. This cannot be undone.
      </p>
      <form method="post" action="${BASE}/keys/${key.id}/revoke" class="row">
        <input type="hidden" name="_csrf" value="${account.csrfToken}" />
        <button type="submit" class="danger">Revoke key</button>
        <a class="button secondary" href="${BASE}/keys">Cancel</a>
      </form>
    </section>`,
  );
}

export function usagePage(account: PortalAccount, key: PortalKey, usage: UsageBody['usage']): string {
  const t = usage.totals;
  const stat = (value: number, label: string) =>
    html`<div class="stat"><b>${value.toLocaleString('en-US')}</b><span>${label}</span></div>`;
  const busy = usage.hours.filter((h) => h.total > 0).reverse();
  return signedIn(
    account,
    `Usage of ${key.name}`,
    html`<p><a href="${BASE}/keys">← My keys</a></p>
      <h1>Usage of “${key.name}”</h1>
      <p class="lead">
        <code>${key.prefix}…</code> · ${key.tier} tier · quota ${key.quota.toLocaleString('en-US')} requests
        per hour · ${key.revoked ? 'revoked' : 'active'}
      </p>
      <div class="stats" id="totals">
        ${stat(t.total, 'requests, last 48 h')}${stat(key.requests_this_hour, `this hour of ${key.quota.toLocaleString('en-US')}`)}
        ${stat(t['2xx'], '2xx success')}${stat(t['3xx'], '3xx not modified')}${stat(t['4xx'], '4xx client errors')}${stat(t['429'], '429 over quota')}${stat(t['5xx'], '5xx server errors')}
      </div>
      <section class="card" aria-labelledby="chart-title">
        <h2 id="chart-title">Requests per hour, last 48 hours (UTC)</h2>
        ${usageChart(usage.hours, usage.quota)}
        <ul class="legend">
          ${SERIES.map(([cls, label]) => html`<li><i class="l-${cls}"></i>${label}</li>`)}
          <li><i class="l-quota"></i>Hourly quota</li>
        </ul>
      </section>
      <section class="card" aria-labelledby="table-title">
        <h2 id="table-title">Hours with traffic</h2>
        ${
          busy.length === 0
            ? html`<p class="empty">No requests in the last 48 hours.</p>`
            : html`<div class="table-wrap">
                <table class="usage">
                  <thead>
                    <tr>
                      <th scope="col">Hour (UTC)</th>
                      ${SERIES.map(([cls]) => html`<th scope="col" class="num">${cls}</th>`)}
                      <th scope="col" class="num">Total</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${busy.map(
                      (h) =>
                        html`<tr>
                          <td>${hourCell(h.hour)}</td>
                          ${SERIES.map(([cls]) => html`<td class="num">${h[cls]}</td>`)}
                          <td class="num">${h.total}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
        }
        <p class="hint">Counts are written every few seconds and kept for at least 30 days.</p>
      </section>`,
  );
}

export function messagePage(title: string, message: string, account?: PortalAccount): string {
  const body = html`<section class="card narrow">
    <h1>${title}</h1>
    <p>${message}</p>
    <p><a href="${BASE}/keys">Back to my keys</a></p>
  </section>`;
  return account ? signedIn(account, title, body) : layout({ title, base: BASE }, body);
}
