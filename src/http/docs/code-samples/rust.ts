import type { CodeSampleLanguage, SampleOperation } from './index.js';

// The Rust client (clients/rust): `hub.<method>(path).path_param(..).query(..).json(..).send()`.
// One template; the event stream, the text log routes and the OAuth forms have their own lines.

const BASE = '"https://hub.example.com"';
const ENV = (name: string) => `std::env::var("${name}").unwrap_or_default()`;

/** A JSON value as the body of `serde_json::json!`, which reads JSON as written. */
function jsonMacro(value: unknown, indent: string): string {
  return `serde_json::json!(${JSON.stringify(value, null, 4).replace(/\n/g, `\n${indent}`)})`;
}

/** A query or path value: text and numbers as Rust literals (both `Display`). */
function display(value: unknown): string {
  return typeof value === 'string' || typeof value === 'number'
    ? JSON.stringify(value)
    : JSON.stringify(JSON.stringify(value));
}

function client(op: SampleOperation): { uses: string[]; lines: string[] } {
  const build = (extra: string[]) => [
    `    let hub = HubClient::builder(${BASE})`,
    ...extra.map((line) => `        ${line}`),
    '        .build()?;',
  ];
  switch (op.credential) {
    case 'user':
      return {
        uses: ['HubClient', 'OAuthClient'],
        lines: [
          `    // Acts for a user: an OAuth access token${op.scopes.length ? ` with the ${op.scopes.map((s) => `\`${s}\``).join(', ')} scope` : ''}, refreshed from the one you stored.`,
          `    let oauth = OAuthClient::new(${BASE}, "app_123", "https://app.example/callback");`,
          `    let tokens = oauth.refresh(&${ENV('HUB_REFRESH_TOKEN')}).await?;`,
          ...build([
            '.oauth(tokens, oauth)',
            '.on_tokens(|next| println!("store the rotated refresh token: {:?}", next.refresh_token))',
          ]),
        ],
      };
    case 'apiKey':
      return { uses: ['HubClient'], lines: build([`.api_key(${ENV('HUB_API_KEY')})`]) };
    case 'session':
    case 'ingestToken':
    case 'none':
      return { uses: ['HubClient'], lines: build([]) };
  }
}

/** The headers a portal or ingest call carries itself: the library holds no such credential. */
function ownHeaders(op: SampleOperation): string[] {
  if (op.credential === 'session')
    return [
      `.header("cookie", &format!("hub_session={}", ${ENV('HUB_SESSION')}))`,
      `.header("x-csrf-token", &${ENV('HUB_CSRF')})`,
    ];
  if (op.credential === 'ingestToken')
    return [`.header("authorization", &format!("Bearer {}", ${ENV('HUB_INGEST_TOKEN')}))`];
  return [];
}

function call(op: SampleOperation): { uses: string[]; lines: string[] } {
  if (op.eventStream)
    return {
      uses: ['EventStreamOptions'],
      lines: [
        '    // reconnects with Last-Event-ID: no event twice, none skipped',
        '    let mut stream = hub.events(EventStreamOptions::default().types(["match.ended"]));',
        '    while let Some(event) = stream.try_next().await? {',
        '        println!("{} {}", event.event_type(), event.id());',
        '    }',
      ],
    };
  const steps = [
    ...Object.entries(op.pathParams).map(([name, v]) => `.path_param("${name}", ${display(v)})`),
    ...Object.entries(op.query).map(([name, v]) => `.query("${name}", ${display(v)})`),
    ...(op.body === undefined ? [] : [`.json(&${jsonMacro(op.body, '        ')})`]),
    ...ownHeaders(op),
  ];
  return {
    uses: [],
    lines: [
      '    let answer: serde_json::Value = hub',
      `        .${op.method}("${op.path}")`,
      ...steps.map((step) => `        ${step}`),
      '        .send()',
      '        .await?;',
      '    println!("{answer}");',
    ],
  };
}

/** Log lines are plain text and the OAuth endpoints take a form: the reqwest the crate re-exports. */
function plainCall(op: SampleOperation): string[] {
  const byPath = op.pathParams.token !== undefined;
  const url = byPath
    ? `format!("https://hub.example.com${op.path.replace('{token}', '{}')}", ${ENV('HUB_INGEST_TOKEN')})`
    : `"https://hub.example.com${op.path}"`;
  const send =
    op.textBody !== undefined
      ? [
          ...(byPath ? [] : [`        .bearer_auth(${ENV('HUB_INGEST_TOKEN')})`]),
          '        .header("content-type", "text/plain")',
          `        .body(${JSON.stringify(op.textBody)})`,
        ]
      : [
          `        .form(&[${Object.entries(op.formBody ?? {})
            .map(([name, v]) => `("${name}", ${JSON.stringify(v)})`)
            .join(', ')}])`,
        ];
  return [
    ...(op.formBody !== undefined
      ? [
          '    // OAuthClient (authorization_url, exchange_code, refresh, revoke) sends these requests for you.',
        ]
      : []),
    '    let response = gaming_hub_client::reqwest::Client::new()',
    `        .post(${url})`,
    ...send,
    '        .send()',
    '        .await?;',
    '    println!("{} {}", response.status(), response.text().await?);',
  ];
}

export const rustSamples: CodeSampleLanguage = {
  lang: 'rust',
  label: 'Rust',
  sample(op) {
    const plain = op.textBody !== undefined || op.formBody !== undefined;
    const open = plain ? { uses: [], lines: [] } : client(op);
    const made = plain ? { uses: [], lines: plainCall(op) } : call(op);
    const uses = [...open.uses, ...made.uses].sort();
    const header = [
      ...(op.eventStream ? ['use futures_util::TryStreamExt;'] : []),
      ...(uses.length
        ? [`use gaming_hub_client::${uses.length > 1 ? `{${uses.join(', ')}}` : uses[0]};`]
        : []),
    ];
    return [
      ...header,
      ...(header.length ? [''] : []),
      '#[tokio::main]',
      'async fn main() -> Result<(), Box<dyn std::error::Error>> {',
      ...open.lines,
      ...made.lines,
      '    Ok(())',
      '}',
      '',
    ].join('\n');
  },
};
