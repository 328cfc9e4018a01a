import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ERRORS, problemBody, problemType, ProblemError, type ErrorCode } from '../problem.js';
import {
  API_PREFIX,
  DOCS_PATH,
  EXAMPLE_REQUEST_ID,
  GUIDES_PATH,
  OPENAPI_PATH,
  PROBLEMS_PATH,
} from '../paths.js';
import { PROBLEM_HELP } from '../problem-help.js';

/**
 * Pages for people rather than programs, all without a key: the explanation behind every problem
 * `type` URI, and an index at the service root. Each answers HTML to a browser and JSON to a client
 * that asks for it, so `Vary: Accept` keeps shared caches from mixing the two.
 */

export interface ProblemDoc {
  code: ErrorCode;
  type: string;
  title: string;
  status: number;
  when: string;
  what_to_do: string;
  example: ReturnType<typeof problemBody>;
}

export const isErrorCode = (code: string): code is ErrorCode => Object.hasOwn(ERRORS, code);

export function problemDoc(code: ErrorCode): ProblemDoc {
  const { status, title } = ERRORS[code];
  const help = PROBLEM_HELP[code];
  return {
    code,
    type: problemType(code),
    title,
    status,
    when: help.when,
    what_to_do: help.fix,
    example: problemBody(code, help.example, EXAMPLE_REQUEST_ID),
  };
}

/** q-value of the best Accept range matching any of `types` (`*\/*` and `type/*` included). */
function quality(accept: string, types: string[]): number {
  let best = 0;
  for (const part of accept.split(',')) {
    const [range = '', ...params] = part.trim().toLowerCase().split(';');
    const q = Number(
      params
        .find((p) => p.trim().startsWith('q='))
        ?.trim()
        .slice(2) ?? '1',
    );
    const matches = types.some(
      (t) => range === t || range === '*/*' || (range.endsWith('/*') && t.startsWith(range.slice(0, -1))),
    );
    if (matches && Number.isFinite(q)) best = Math.max(best, q);
  }
  return best;
}

/** JSON only when the client ranks it above HTML; browsers and bare requests get HTML. */
export function prefersJson(accept: string | undefined): boolean {
  if (!accept) return false;
  return quality(accept, ['application/json', 'application/problem+json']) > quality(accept, ['text/html']);
}

export const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Help texts mark code with backticks, as in the OpenAPI markdown. */
const inlineCode = (text: string): string => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
main{max-width:46rem;margin:2rem auto;padding:0 1rem}nav a{margin-right:1rem}
code,pre{font-family:ui-monospace,monospace;background:#eee;border-radius:4px}code{padding:0 .25rem}
pre{padding:1rem;overflow:auto;white-space:pre-wrap;overflow-wrap:anywhere}table{border-collapse:collapse;width:100%}
td,th{text-align:left;padding:.3rem .6rem;border-bottom:1px solid #ddd}.status{color:#666}
pre code{background:none;padding:0}h1,h2,h3{line-height:1.25}.guide table{display:block;overflow-x:auto}main:has(.guide){max-width:64rem}`;

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Gaming Hub API</title><style>${STYLE}</style></head>
<body><main>
<nav><a href="${DOCS_PATH}/">API reference</a><a href="${GUIDES_PATH}">Guides</a><a href="${PROBLEMS_PATH}">All error codes</a></nav>
${body}
</main></body>
</html>
`;
}

function problemPage(doc: ProblemDoc): string {
  return page(
    doc.title,
    `<h1>${escapeHtml(doc.title)}</h1>
<p class="status"><code>${doc.code}</code> · HTTP ${doc.status}</p>
<h2>When it happens</h2><p>${inlineCode(doc.when)}</p>
<h2>What to do</h2><p>${inlineCode(doc.what_to_do)}</p>
<h2>Example</h2><pre>${escapeHtml(JSON.stringify(doc.example, null, 2))}</pre>`,
  );
}

function problemIndexPage(docs: ProblemDoc[]): string {
  const rows = docs
    .map(
      (d) =>
        `<tr><td>${d.status}</td><td><a href="${d.type}"><code>${d.code}</code></a></td><td>${escapeHtml(d.title)}</td></tr>`,
    )
    .join('\n');
  return page(
    'Error codes',
    `<h1>Error codes</h1>
<p>Every error is an RFC 9457 <code>application/problem+json</code> document whose <code>type</code> links here.</p>
<table><thead><tr><th>Status</th><th>Code</th><th>Title</th></tr></thead><tbody>
${rows}
</tbody></table>`,
  );
}

// Static pages: no script at all, and nothing loaded from anywhere.
export const PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; frame-ancestors 'none'";

function negotiate(request: FastifyRequest, reply: FastifyReply, json: unknown, html: () => string) {
  void reply.header('vary', 'Accept').header('cache-control', 'public, max-age=3600');
  if (prefersJson(request.headers.accept)) return reply.type('application/json; charset=utf-8').send(json);
  return reply.header('content-security-policy', PAGE_CSP).type('text/html; charset=utf-8').send(html());
}

export const SERVICE_INDEX = {
  name: 'Gaming Hub API',
  version: '1.0.0',
  links: {
    api: API_PREFIX,
    openapi: OPENAPI_PATH,
    docs: `${DOCS_PATH}/`,
    problems: PROBLEMS_PATH,
  },
};

// A small icon so browsers opening the docs don't log a 404 for /favicon.ico.
const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#3b3bd6"/><path d="M8 20a4 4 0 0 1 4-8h8a4 4 0 0 1 4 8z" fill="#fff"/></svg>`;

export function registerPages(app: FastifyInstance, docsPath: string): void {
  const all = (Object.keys(ERRORS) as ErrorCode[]).map(problemDoc);
  const base = PROBLEMS_PATH;
  const hidden = { schema: { hide: true } };

  app.get(base, hidden, (request, reply) =>
    negotiate(request, reply, { problems: all }, () => problemIndexPage(all)),
  );

  app.get<{ Params: { code: string } }>(`${base}/:code`, hidden, (request, reply) => {
    const { code } = request.params;
    if (!isErrorCode(code)) throw new ProblemError('not_found', `There is no error code '${code}'.`);
    const doc = problemDoc(code);
    return negotiate(request, reply, doc, () => problemPage(doc));
  });

  // The service root and the API base address point people at the reference; programs get links.
  const index = (request: FastifyRequest, reply: FastifyReply) => {
    void reply.header('vary', 'Accept');
    if (prefersJson(request.headers.accept) || !request.headers.accept?.includes('text/html'))
      return reply.send(SERVICE_INDEX);
    return reply.redirect(`${docsPath}/`, 302);
  };
  app.get('/', hidden, index);
  app.get(SERVICE_INDEX.links.api, hidden, index);

  app.get('/favicon.ico', hidden, (_request, reply) =>
    reply.header('cache-control', 'public, max-age=86400').type('image/svg+xml').send(FAVICON),
  );
}
