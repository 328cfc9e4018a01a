import type { PortalKey } from '../schemas.js';
import type { PortalAccount } from '../session-auth.js';
import { guideHref, html } from './html.js';
import { alert, BASE, signedIn } from './pages.js';

/** The form that restricts a key to browser origins (CORS), one per line. */
export function originsPage(
  account: PortalAccount,
  key: PortalKey,
  notice: { errors?: string[]; success?: string; origins?: string } = {},
): string {
  const current = notice.origins ?? key.allowed_origins.join('\n');
  return signedIn(
    account,
    'Allowed origins',
    html`<section class="card narrow" aria-labelledby="title">
      <h1 id="title">Allowed origins of “${key.name}”</h1>
      <p>
        Web pages on these origins may call the API with this key from the browser; a page on any other origin
        gets <code>403 origin_not_allowed</code>. Calls without an <code>Origin</code> header (your server,
        scripts) are not affected, so this keeps other sites from using a key you publish in a page; it does
        not make the key secret. Leave the list empty to allow any origin.
      </p>
      ${alert('error', notice.errors?.join(' '))}${alert('success', notice.success)}
      <form method="post" action="${BASE}/keys/${key.id}/origins">
        <input type="hidden" name="_csrf" value="${account.csrfToken}" />
        <label for="origins">One origin per line</label>
        <textarea id="origins" name="origins" rows="5" maxlength="2200" spellcheck="false">
${current}</textarea>
        <p class="hint">
          As browsers send it: scheme, host, and port if not the default, such as
          <code>https://app.example.com</code> or <code>http://localhost:5173</code>. At most 10. See
          <a href="${guideHref('using-the-api', 'calling-from-a-browser-cors')}">Calling from a browser</a>.
        </p>
        <div class="row">
          <button type="submit">Save origins</button>
          <a class="button secondary" href="${BASE}/keys">Back to keys</a>
        </div>
      </form>
    </section>`,
  );
}
