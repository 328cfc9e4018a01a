import {
  alert,
  BASE,
  csrfField,
  listTable,
  notices,
  secretShownOnce,
  signedIn,
} from '../portal/pages/pages.js';
import { guideHref, html, type SafeHtml } from '../portal/pages/html.js';
import type { PortalAccount } from '../portal/session-auth.js';
import type { DeliveryBody, WebhookBody } from './schemas.js';
import type { WebhookTestResult } from './test-send.js';

/** A webhook as the portal lists it: with whose it is. */
export interface PortalWebhook extends WebhookBody {
  owner: string;
}

/** Who may own a new webhook: the developer (their API keys), or one of their apps. */
export interface OwnerChoice {
  value: string;
  label: string;
}

export interface Notice {
  errors?: string[];
  success?: string;
}

const when = (iso: string | null) => (iso ? iso.slice(0, 19).replace('T', ' ') : '—');

function fields(webhook: Partial<WebhookBody>) {
  return html`<label for="url">Endpoint URL</label>
    <input type="url" id="url" name="url" required maxlength="2048" value="${webhook.url ?? ''}" />
    <label for="events">Event types</label>
    <textarea id="events" name="events" rows="3" required aria-describedby="events-hint">
${(webhook.events ?? ['*']).join('\n')}</textarea>
    <p class="hint" id="events-hint">
      One per line (or separated by commas), from <a href="/api-platform/docs">the event catalog</a>;
      <code>*</code> for every type.
    </p>
    <label for="description">Description (optional)</label>
    <input
      type="text"
      id="description"
      name="description"
      maxlength="200"
      value="${webhook.description ?? ''}"
    />`;
}

export function webhooksPage(
  account: PortalAccount,
  webhooks: PortalWebhook[],
  owners: OwnerChoice[],
  notice: Notice,
): string {
  return signedIn(
    account,
    'Webhooks',
    html`<h1>Webhooks</h1>
      <p class="lead">
        Events pushed to your server as signed POSTs (Standard Webhooks). Try an endpoint first with the
        <a href="${BASE}/webhook-test">webhook test</a>; the
        <a href="${guideHref('events-and-webhooks', 'webhooks')}">webhooks guide</a> shows how to verify them.
      </p>
      ${notices(notice)}
      <section class="card" aria-labelledby="list-title">
        <h2 id="list-title">Your webhooks</h2>
        ${listTable({
          className: 'webhooks',
          empty: 'No webhooks yet.',
          columns: ['URL', 'Owner', 'Events', 'State'],
          items: webhooks,
          row: (w) =>
            html`<td><a href="${BASE}/webhooks/${w.id}">${w.url}</a></td>
              <td>${w.owner}</td>
              <td>${w.events.join(', ')}</td>
              <td>${w.enabled ? 'enabled' : `disabled (${w.disabled_reason ?? 'owner'})`}</td>`,
        })}
      </section>
      <section class="card" aria-labelledby="create-title">
        <h2 id="create-title">Add a webhook</h2>
        <form method="post" action="${BASE}/webhooks/new">
          ${csrfField(account)}
          <label for="owner">For</label>
          <select id="owner" name="owner">
            ${owners.map((o) => html`<option value="${o.value}">${o.label}</option>`)}
          </select>
          ${fields({})}
          <button type="submit">Add webhook</button>
        </form>
      </section>`,
  );
}

function deliveryRows(account: PortalAccount, webhookId: number, deliveries: DeliveryBody[]): SafeHtml {
  return listTable({
    className: 'deliveries',
    empty: 'No deliveries in the last 30 days.',
    columns: [
      'Event',
      'Status',
      'Tries',
      'Answer',
      'Latency',
      'Queued',
      html`<span class="visually-hidden">Actions</span>`,
    ],
    items: deliveries,
    row: (d) =>
      html`<td><code>${d.event_id}</code> ${d.event_type ?? ''}</td>
        <td>${d.status}</td>
        <td>${d.attempts}</td>
        <td>
          ${d.last_status_code ?? d.last_error ?? '—'}
          ${d.last_response ? html`<pre class="excerpt">${d.last_response}</pre>` : ''}
        </td>
        <td>${d.last_latency_ms === null ? '—' : `${d.last_latency_ms} ms`}</td>
        <td>${when(d.created_at)}</td>
        <td>
          <form
            method="post"
            action="${BASE}/webhooks/${webhookId}/deliveries/${d.id}/redeliver"
            class="inline"
          >
            ${csrfField(account)}<button type="submit" class="secondary small">Redeliver</button>
          </form>
        </td>`,
  });
}

export function webhookPage(
  account: PortalAccount,
  webhook: PortalWebhook,
  deliveries: DeliveryBody[],
  notice: Notice & { secret?: string },
): string {
  return signedIn(
    account,
    'Webhook',
    html`<p><a href="${BASE}/webhooks">← Webhooks</a></p>
      <h1>Webhook ${webhook.id}</h1>
      <p class="lead"><code>${webhook.url}</code> · ${webhook.owner}</p>
      ${notices(notice)}
      ${
        notice.secret
          ? secretShownOnce(
              'Signing secret',
              notice.secret,
              html`<strong>Copy the signing secret now.</strong> It is shown only once.`,
            )
          : ''
      }
      <section class="card" aria-labelledby="edit-title">
        <h2 id="edit-title">Settings</h2>
        <p>
          ${
            webhook.enabled
              ? 'Enabled.'
              : `Disabled (${webhook.disabled_reason ?? 'owner'}): nothing is sent to it until it is enabled again.`
          }
        </p>
        <form method="post" action="${BASE}/webhooks/${webhook.id}/edit">
          ${csrfField(account)} ${fields(webhook)}
          <label
            ><input type="checkbox" name="enabled" value="on" ${webhook.enabled ? html`checked` : ''} />
            Enabled</label
          >
          <button type="submit">Save</button>
        </form>
      </section>
      <section class="card" aria-labelledby="secret-title">
        <h2 id="secret-title">Signing secret</h2>
        <p>A new secret is shown once; the previous one keeps signing beside it for 24 hours.</p>
        <form method="post" action="${BASE}/webhooks/${webhook.id}/secret" class="row">
          ${csrfField(account)}<button type="submit" class="secondary">Rotate secret</button>
        </form>
      </section>
      <section class="card" aria-labelledby="log-title">
        <h2 id="log-title">Deliveries</h2>
        ${deliveryRows(account, webhook.id, deliveries)}
      </section>
      <section class="card" aria-labelledby="delete-title">
        <h2 id="delete-title">Delete</h2>
        <form method="post" action="${BASE}/webhooks/${webhook.id}/delete" class="row">
          ${csrfField(account)}<button type="submit" class="danger">Delete webhook</button>
        </form>
      </section>`,
  );
}

function resultSection(result: WebhookTestResult): SafeHtml {
  const headers = Object.entries(result.headers);
  return html`<section class="card" aria-labelledby="result-title" id="result">
    <h2 id="result-title">Result</h2>
    ${
      result.error
        ? alert('error', `No answer: ${result.error} (${result.error_message ?? ''})`)
        : alert(
            result.ok ? 'success' : 'error',
            `${result.status ?? ''}: ${result.ok ? 'accepted' : 'refused'}`,
          )
    }
    <dl class="facts">
      <dt>Sent to</dt>
      <dd><code>${result.url}</code></dd>
      <dt>Status</dt>
      <dd id="result-status">${result.status ?? '—'}</dd>
      <dt>Latency</dt>
      <dd id="result-latency">${result.latency_ms} ms</dd>
      <dt>Event</dt>
      <dd><code>${result.event.id}</code> ${result.event.type}</dd>
      ${
        result.secret
          ? html`<dt>Signed with</dt>
              <dd><code>${result.secret}</code></dd>`
          : ''
      }
    </dl>
    ${
      headers.length > 0
        ? html`<h3>Response headers</h3>
            <div class="table-wrap">
              <table class="headers">
                <tbody>
                  ${headers.map(
                    ([name, value]) =>
                      html`<tr>
                        <th scope="row">${name}</th>
                        <td>${value}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
        : ''
    }
    <h3>Response body (first 1 KiB)</h3>
    <pre class="excerpt" id="result-body">${result.body_excerpt}</pre>
    <h3>Sent body</h3>
    <pre class="excerpt">${JSON.stringify(result.event, null, 2)}</pre>
  </section>`;
}

export function webhookTestPage(
  account: PortalAccount,
  options: { types: string[]; webhooks: PortalWebhook[]; result?: WebhookTestResult; notice: Notice },
): string {
  return signedIn(
    account,
    'Webhook test',
    html`<h1>Webhook test</h1>
      <p class="lead">
        Send a signed sample of any event type (the catalog's example) and see what your endpoint answers.
        Nothing is stored or retried. A receiver on your own machine needs the service started with
        <code>WEBHOOKS_ALLOW_PRIVATE_TARGETS=true</code>
        (<a href="${guideHref('events-and-webhooks', 'trying-webhooks-on-your-own-machine')}">how</a>).
      </p>
      ${notices(options.notice)}
      <section class="card" aria-labelledby="test-title">
        <h2 id="test-title">Send a sample</h2>
        <form method="post" action="${BASE}/webhook-test/send">
          ${csrfField(account)}
          <label for="event_type">Event type</label>
          <select id="event_type" name="event_type">
            ${options.types.map((t) => html`<option value="${t}">${t}</option>`)}
          </select>
          <label for="webhook_id">To one of your webhooks</label>
          <select id="webhook_id" name="webhook_id">
            <option value="">— a URL instead —</option>
            ${options.webhooks.map((w) => html`<option value="${w.id}">${w.url} (${w.owner})</option>`)}
          </select>
          <label for="url">Or to a URL</label>
          <input type="url" id="url" name="url" maxlength="2048" />
          <label for="secret">Secret to sign with (optional, for a URL)</label>
          <input type="text" id="secret" name="secret" maxlength="100" spellcheck="false" />
          <button type="submit">Send</button>
        </form>
      </section>
      ${options.result ? resultSection(options.result) : ''}`,
  );
}
