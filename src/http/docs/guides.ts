import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { GUIDES_PATH } from '../paths.js';
import { ProblemError } from '../problem.js';
import { renderGuide, type RenderedGuide } from './markdown.js';
import { escapeHtml, page, PAGE_CSP } from './pages.js';

/**
 * The guides of docs/ served as pages under the docs, so that the portal and the reference can link
 * them: the repository's files are the one source, rendered once at start-up.
 */

/** The repository's docs/ folder, the same three levels up from src/http/docs and dist/http/docs. */
export const GUIDES_DIR = fileURLToPath(new URL('../../../docs/', import.meta.url));

/** The order a newcomer reads them in (the README's); a guide not listed here comes after, by name. */
const READING_ORDER = [
  'using-the-api',
  'v1-preview',
  'client-libraries',
  'oauth-apps',
  'events-and-webhooks',
  'server-commands',
  'game-servers',
  'operating',
  'development',
  'architecture',
];

export interface Guide extends RenderedGuide {
  name: string;
}

export function loadGuides(dir: string, guideHref: (name: string) => string): Guide[] {
  if (!existsSync(dir)) return [];
  const names = readdirSync(dir)
    .filter((f) => /^[a-z0-9-]+\.md$/.test(f))
    .map((f) => f.slice(0, -'.md'.length));
  const rank = (name: string) => {
    const i = READING_ORDER.indexOf(name);
    return i === -1 ? READING_ORDER.length : i;
  };
  names.sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
  const known = new Set(names);
  const href = (name: string) => (known.has(name) ? guideHref(name) : undefined);
  return names.map((name) => ({
    name,
    ...renderGuide(readFileSync(`${dir}${name}.md`, 'utf8'), { guideHref: href }),
  }));
}

export function registerGuides(app: FastifyInstance, dir = GUIDES_DIR): void {
  const base = GUIDES_PATH;
  const guides = loadGuides(dir, (name) => `${base}/${name}`);
  const byName = new Map(guides.map((g) => [g.name, g]));
  const hidden = { schema: { hide: true } };
  const send = (reply: FastifyReply, html: string) =>
    reply
      .header('content-security-policy', PAGE_CSP)
      .header('cache-control', 'public, max-age=3600')
      .type('text/html; charset=utf-8')
      .send(html);

  const index = page(
    'Guides',
    `<h1>Guides</h1>
<p>How to use the hub, beyond the reference of every operation.</p>
<ul>
${guides.map((g) => `<li><a href="${base}/${g.name}">${escapeHtml(g.title || g.name)}</a></li>`).join('\n')}
</ul>`,
  );
  const pages = new Map(
    guides.map((g) => [g.name, page(g.title || g.name, `<article class="guide">${g.html}</article>`)]),
  );

  app.get(base, hidden, (_request, reply) => send(reply, index));
  app.get<{ Params: { name: string } }>(`${base}/:name`, hidden, (request, reply) => {
    const html = byName.has(request.params.name) ? pages.get(request.params.name) : undefined;
    if (html === undefined)
      throw new ProblemError('not_found', `There is no guide '${request.params.name}'.`);
    return send(reply, html);
  });
}
