import { DOCS_PATH, GUIDES_PATH } from '../../../http/paths.js';
import { ASSET_NAMES } from './assets.js';

/** Server-rendered HTML: every interpolated value is escaped unless it is already SafeHtml. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Part = SafeHtml | string | number | null | undefined | false | readonly Part[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** The page of a guide of docs/ (and a section of it): the portal's pages point at the guide that explains them. */
export const guideHref = (name: string, section?: string): string =>
  `${GUIDES_PATH}/${name}${section ? `#${section}` : ''}`;

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);

function render(part: Part): string {
  if (part === null || part === undefined || part === false) return '';
  if (part instanceof SafeHtml) return part.value;
  if (Array.isArray(part)) return (part as readonly Part[]).map(render).join('');
  return escapeHtml(String(part));
}

export function html(strings: TemplateStringsArray, ...values: Part[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

export interface LayoutOptions {
  title: string;
  /** the signed-in user, for the header */
  username?: string;
  csrfToken?: string;
  base: string;
}

export function layout(options: LayoutOptions, body: SafeHtml): string {
  const { title, username, csrfToken, base } = options;
  return `<!doctype html>${
    html`<html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>${title} · Gaming Hub developers</title>
        <link rel="stylesheet" href="${base}/assets/${ASSET_NAMES.css}" />
        <script src="${base}/assets/${ASSET_NAMES.js}" defer></script>
      </head>
      <body>
        <a class="skip" href="#main">Skip to content</a>
        <header class="top">
          <a class="brand" href="${base}">Gaming Hub <span>developers</span></a>
          <nav aria-label="Portal">
            <a href="${DOCS_PATH}">API reference</a>
            <a href="${GUIDES_PATH}">Guides</a>
            <a href="${GUIDES_PATH}/client-libraries">Client libraries</a>
            ${
              username
                ? html`<a href="${base}/keys">My keys</a>
                    <a href="${base}/apps">My apps</a>
                    <a href="${base}/webhooks">Webhooks</a>
                    <a href="${base}/authorized-apps">Authorized apps</a>
                    <a href="${base}/identities">Game identities</a>
                    <form method="post" action="${base}/sign-out" class="inline">
                      <input type="hidden" name="_csrf" value="${csrfToken}" />
                      <button type="submit" class="link">
                        Sign out <span class="muted">(${username})</span>
                      </button>
                    </form>`
                : html`<a href="${base}/sign-in">Sign in</a>
                    <a class="button small" href="${base}/sign-up">Sign up</a>`
            }
          </nav>
        </header>
        <main id="main" tabindex="-1">${body}</main>
        <footer class="foot">
          The developer portal is in preview and under construction. Published API:
          <code>/api-platform/v1</code>. Client libraries for
          <a href="${GUIDES_PATH}/client-libraries">TypeScript, Python, Go and Rust</a>.
        </footer>
      </body>
    </html>`.value
  }`;
}
