import { literal as anyLiteral, type CodeSampleLanguage, type SampleOperation } from './index.js';

// The Python client (clients/python): `hub.<method>(path, path_params=..., params=..., json=...)`.
// One template; the event stream has its own lines below.

const BASE = '"https://hub.example.com"';

const PY = { none: 'None', yes: 'True', no: 'False', key: (name: string) => JSON.stringify(name) };
const literal = (value: unknown, indent: number) => anyLiteral(value, indent, PY);

function client(op: SampleOperation): { imports: string[]; setup: string[]; open: string } {
  switch (op.credential) {
    case 'user':
      return {
        imports: ['from gaming_hub import HubClient, HubOAuth'],
        setup: [
          `# Acts for a user: an OAuth access token${op.scopes.length ? ` with the ${op.scopes.map((s) => `\`${s}\``).join(', ')} scope` : ''}, refreshed from the one you stored.`,
          `oauth = HubOAuth(${BASE}, "app_123", "https://app.example/callback")`,
          'tokens = oauth.refresh(os.environ["HUB_REFRESH_TOKEN"])',
        ],
        open: `HubClient(${BASE}, oauth=oauth, tokens=tokens)`,
      };
    case 'apiKey':
      return {
        imports: ['from gaming_hub import HubClient'],
        setup: [],
        open: `HubClient(${BASE}, api_key=os.environ["HUB_API_KEY"])`,
      };
    case 'session':
    case 'ingestToken':
    case 'none':
      return { imports: ['from gaming_hub import HubClient'], setup: [], open: `HubClient(${BASE})` };
  }
}

function headers(op: SampleOperation): string | undefined {
  if (op.credential === 'session')
    return 'headers={"cookie": f"hub_session={os.environ[\'HUB_SESSION\']}", "x-csrf-token": os.environ["HUB_CSRF"]}';
  if (op.credential === 'ingestToken')
    return 'headers={"authorization": f"Bearer {os.environ[\'HUB_INGEST_TOKEN\']}"}';
  return undefined;
}

function call(op: SampleOperation): string[] {
  if (op.eventStream)
    return [
      '    # reconnects with Last-Event-ID: no event twice, none skipped',
      '    for event in hub.events(types=["match.ended"]):',
      '        print(event.id, event.type)',
    ];
  const args = [JSON.stringify(op.path)];
  if (Object.keys(op.pathParams).length) args.push(`path_params=${literal(op.pathParams, 8)}`);
  if (Object.keys(op.query).length) args.push(`params=${literal(op.query, 8)}`);
  if (op.body !== undefined) args.push(`json=${literal(op.body, 8)}`);
  const own = headers(op);
  if (own) args.push(own);
  return [
    `    answer = hub.${op.method}(`,
    ...args.map((a) => `        ${a},`),
    '    )',
    '    print(answer)',
  ];
}

/** Log lines are plain text, which the client (JSON) does not send: a plain httpx call. */
function textLines(op: SampleOperation): string {
  const byPath = op.pathParams.token !== undefined;
  const url = `https://hub.example.com${op.path.replace('{token}', "{os.environ['HUB_INGEST_TOKEN']}")}`;
  return [
    'import os',
    '',
    'import httpx',
    '',
    'response = httpx.post(',
    `    ${byPath ? 'f' : ''}${JSON.stringify(url)},`,
    `    content=${JSON.stringify(op.textBody)},`,
    `    headers={${byPath ? '' : '"authorization": f"Bearer {os.environ[\'HUB_INGEST_TOKEN\']}", '}"content-type": "text/plain"},`,
    ')',
    'print(response.json())',
    '',
  ].join('\n');
}

/** An OAuth protocol endpoint takes a form, which `HubOAuth` sends for an app: here as a plain httpx call. */
function formCall(op: SampleOperation): string {
  return [
    '# HubOAuth (authorization_url, exchange_code, refresh, revoke) sends these requests for you.',
    'import httpx',
    '',
    'response = httpx.post(',
    `    ${JSON.stringify(`https://hub.example.com${op.path}`)},`,
    `    data=${literal(op.formBody ?? {}, 4)},`,
    ')',
    'print(response.status_code, response.text)  # revocation answers 200 with no body',
    '',
  ].join('\n');
}

export const pythonSamples: CodeSampleLanguage = {
  lang: 'python',
  label: 'Python',
  sample(op) {
    if (op.textBody !== undefined) return textLines(op);
    if (op.formBody !== undefined) return formCall(op);
    const { imports, setup, open } = client(op);
    return [
      'import os',
      '',
      ...imports,
      '',
      ...setup,
      ...(setup.length ? [''] : []),
      `with ${open} as hub:`,
      ...call(op),
      '',
    ].join('\n');
  },
};
