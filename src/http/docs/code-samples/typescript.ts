import { literal as anyLiteral, type CodeSampleLanguage, type SampleOperation } from './index.js';

// The TypeScript client (clients/typescript): `hub.<method>(path, { params, body })`, typed from the
// document. One template; the event stream and the text log route have their own lines below.

const BASE = "'https://hub.example.com'";

const TS = {
  none: 'null',
  yes: 'true',
  no: 'false',
  key: (name: string) => (/^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name)),
};
const literal = (value: unknown, indent: number) => anyLiteral(value, indent, TS, 2);

function client(op: SampleOperation): string[] {
  switch (op.credential) {
    case 'user':
      return [
        "import { HubClient, HubOAuth } from '@gaming-hub/client';",
        '',
        `// Acts for a user: an OAuth access token${op.scopes.length ? ` with the ${op.scopes.map((s) => `\`${s}\``).join(', ')} scope` : ''}, refreshed from the one you stored.`,
        `const oauth = new HubOAuth({ baseUrl: ${BASE}, clientId: 'app_123', redirectUri: 'https://app.example/callback' });`,
        "const tokens = await oauth.refresh(process.env.HUB_REFRESH_TOKEN ?? '');",
        `const hub = new HubClient({ baseUrl: ${BASE}, oauth: { tokens, client: oauth } });`,
      ];
    case 'apiKey':
      return [
        "import { HubClient } from '@gaming-hub/client';",
        '',
        `const hub = new HubClient({ baseUrl: ${BASE}, apiKey: process.env.HUB_API_KEY });`,
      ];
    case 'session':
    case 'ingestToken':
    case 'none':
      return [
        "import { HubClient } from '@gaming-hub/client';",
        '',
        `const hub = new HubClient({ baseUrl: ${BASE} });`,
      ];
  }
}

/** The headers a portal or ingest call carries itself: the library holds no such credential. */
function ownHeaders(op: SampleOperation): string | undefined {
  if (op.credential === 'session')
    return "headers: { cookie: `hub_session=${process.env.HUB_SESSION}`, 'x-csrf-token': process.env.HUB_CSRF ?? '' }";
  if (op.credential === 'ingestToken')
    return 'headers: { authorization: `Bearer ${process.env.HUB_INGEST_TOKEN}` }';
  return undefined;
}

function call(op: SampleOperation): string[] {
  if (op.eventStream)
    return [
      '',
      '// reconnects with Last-Event-ID: no event twice, none skipped',
      "for await (const event of hub.events({ types: ['match.ended'] })) console.log(event.id, event.type);",
    ];
  const params: string[] = [];
  if (Object.keys(op.pathParams).length) params.push(`path: ${literal(op.pathParams, 4)}`);
  if (Object.keys(op.query).length) params.push(`query: ${literal(op.query, 4)}`);
  const init: string[] = [];
  if (params.length) init.push(`params: { ${params.join(', ')} }`);
  if (op.body !== undefined) init.push(`body: ${literal(op.body, 2)}`);
  const headers = ownHeaders(op);
  if (headers) init.push(headers);
  const args = init.length ? `, {\n  ${init.join(',\n  ')},\n}` : '';
  return ['', `const answer = await hub.${op.method}('${op.path}'${args});`, 'console.log(answer);'];
}

/** Log lines are plain text, which the client (JSON) does not send: a plain fetch. */
function textLines(op: SampleOperation): string {
  const token = op.pathParams.token === undefined ? '' : `\${process.env.HUB_INGEST_TOKEN}`;
  const auth = token ? '' : '\n    authorization: `Bearer ${process.env.HUB_INGEST_TOKEN}`,';
  return [
    `const response = await fetch(\`https://hub.example.com${op.path.replace('{token}', token)}\`, {`,
    "  method: 'POST',",
    `  headers: {${auth}\n    'content-type': 'text/plain',\n  },`,
    `  body: ${JSON.stringify(op.textBody)},`,
    '});',
    'console.log(await response.json());',
    '',
  ].join('\n');
}

/** An OAuth protocol endpoint takes a form, which `HubOAuth` sends for an app: here as a plain fetch. */
function formCall(op: SampleOperation): string {
  return [
    '// HubOAuth (authorizationUrl, exchangeCode, refresh, revoke) sends these requests for you.',
    `const response = await fetch('https://hub.example.com${op.path}', {`,
    "  method: 'POST',",
    `  body: new URLSearchParams(${literal(op.formBody, 2)}),`,
    '});',
    'console.log(response.status, await response.text()); // revocation answers 200 with no body',
    '',
  ].join('\n');
}

export const typescriptSamples: CodeSampleLanguage = {
  lang: 'typescript',
  label: 'TypeScript',
  sample: (op) =>
    op.textBody !== undefined
      ? textLines(op)
      : op.formBody !== undefined
        ? formCall(op)
        : [...client(op), ...call(op), ''].join('\n'),
};
