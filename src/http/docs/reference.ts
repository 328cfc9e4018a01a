import scalar, { type ApiReferenceConfiguration } from '@scalar/fastify-api-reference';
import Fastify, { type FastifyInstance } from 'fastify';
import { ProblemError } from '../problem.js';
import {
  hashedName,
  IMMUTABLE,
  precompress,
  REVALIDATE,
  sendAsset,
  staticAsset,
  type StaticAsset,
} from '../static-asset.js';

/**
 * The interactive reference (Scalar), served as three files: a small HTML page revalidated by ETag,
 * and two scripts under content-hashed names cached for a year: Scalar's standalone bundle and the
 * call that starts it with our configuration. No inline script, so the page's policy is
 * `script-src 'self'`: a nonce would change the page on every request and defeat its ETag, and a
 * hash would tie the policy to bytes Scalar generates.
 */

/**
 * Only this service is ever contacted: the bundle is local, telemetry, the AI agent, MCP and the
 * developer tools are off, no web fonts; the policy refuses any other host should a feature try.
 * Inline styles stay allowed: the reference sets `style` attributes, which no nonce can cover.
 */
const REFERENCE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TITLE = 'Gaming Hub API reference';

function configuration(openapiPath: string) {
  const documented: Partial<ApiReferenceConfiguration> = {
    url: openapiPath,
    title: TITLE,
    withDefaultFonts: false,
    telemetry: false,
    showDeveloperTools: 'never',
    agent: { disabled: true },
    documentDownloadType: 'json',
  };
  // `mcp` is newer than some Scalar releases this runs with; older bundles ignore the key.
  return { ...documented, mcp: { disabled: true } };
}

/**
 * Scalar's standalone bundle, obtained the way a browser would: from a throwaway Fastify instance
 * running the plugin, reading the script its page loads. Only the plugin's documented options are
 * used, so this holds across Scalar releases (1.46 reads the bundle from a file, 1.72 inlines it).
 */
async function loadScalarBundle(): Promise<Buffer> {
  const sandbox = Fastify({ logger: false });
  try {
    await sandbox.register(scalar, { routePrefix: '/reference', configuration: { url: '/openapi.json' } });
    const page = await sandbox.inject({ method: 'GET', url: '/reference/' });
    const src = /<script\b[^>]*\bsrc="([^"]+)"/.exec(page.body)?.[1];
    const url = src === undefined ? undefined : new URL(src, 'http://sandbox/reference/');
    if (url?.host !== 'sandbox') throw new Error(`Scalar's page loads no local script (src: ${src})`);
    const bundle = await sandbox.inject({ method: 'GET', url: url.pathname });
    if (bundle.statusCode !== 200) throw new Error(`Scalar's bundle answered ${bundle.statusCode}`);
    return bundle.rawPayload;
  } finally {
    await sandbox.close();
  }
}

/** Read once per process: every app built in it serves the same bytes (and compresses them once). */
let bundle: Promise<StaticAsset> | undefined;
const scalarBundle = () =>
  (bundle ??= loadScalarBundle().then((bytes) => staticAsset(bytes, 'text/javascript; charset=utf-8')));

export interface ReferenceFiles {
  page: StaticAsset;
  /** hashed file name → asset, as published under `<docs>/assets/` */
  assets: Map<string, StaticAsset>;
}

export async function referenceFiles(openapiPath: string): Promise<ReferenceFiles> {
  const library = await scalarBundle();
  const start = staticAsset(
    `'use strict';\nScalar.createApiReference('#app', ${JSON.stringify(configuration(openapiPath))});\n`,
    'text/javascript; charset=utf-8',
  );
  const assets = new Map([
    [hashedName('scalar.js', library), library],
    [hashedName('reference.js', start), start],
  ]);
  // Relative names, as the plugin's own page uses, so the page also works behind a path prefix.
  const scripts = [...assets.keys()].map((name) => `    <script src="assets/${name}"></script>`).join('\n');
  const page = staticAsset(
    `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${TITLE}</title>
  </head>
  <body>
    <div id="app"></div>
${scripts}
  </body>
</html>
`,
    'text/html; charset=utf-8',
  );
  return { page, assets };
}

/** `<docs>` redirects to `<docs>/`, the page; `<docs>/assets/<hashed name>` are its scripts. */
export async function registerReference(app: FastifyInstance, docsPath: string, openapiPath: string) {
  const files = await referenceFiles(openapiPath);
  // A listening server compresses the bundle at once; tests that only inject() never pay for it.
  app.addHook('onListen', () => {
    for (const asset of files.assets.values()) precompress(asset);
  });
  const hidden = { schema: { hide: true } };
  app.get(docsPath, hidden, (_request, reply) => reply.redirect(`${docsPath}/`, 301));
  app.get(`${docsPath}/`, hidden, (request, reply) => {
    void reply.header('content-security-policy', REFERENCE_CSP);
    return sendAsset(request, reply, files.page, REVALIDATE);
  });
  app.get<{ Params: { file: string } }>(`${docsPath}/assets/:file`, hidden, (request, reply) => {
    const asset = files.assets.get(request.params.file);
    if (!asset) throw new ProblemError('not_found', 'No such docs asset.');
    return sendAsset(request, reply, asset, IMMUTABLE);
  });
}
