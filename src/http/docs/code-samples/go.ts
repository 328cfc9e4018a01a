import type { CodeSampleLanguage, SampleOperation } from './index.js';

// The Go client (clients/go): `c.Do(ctx, method, path, &hub.Params{Path, Query, Body}, &answer)`.
// One template; the event stream, the text log routes and the OAuth forms have their own lines.
// Imports are chosen from what the body uses: Go refuses an unused one.

const BASE = '"https://hub.example.com"';
const MODULE = 'github.com/gaming-hub/gaming-hub-go';

/** A JSON value as a one-line Go literal: objects as `map[string]any`, arrays as `[]any`. */
export function goLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'nil';
  if (typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[]any{${value.map(goLiteral).join(', ')}}`;
  const entries = Object.entries(value as Record<string, unknown>);
  return `map[string]any{${entries.map(([key, item]) => `${JSON.stringify(key)}: ${goLiteral(item)}`).join(', ')}}`;
}

/**
 * A JSON body as the reader would write it: the JSON itself in a raw string (`json.RawMessage` is
 * sent as it is). A one-line map when the JSON holds a backquote, which a raw string cannot.
 */
function goBody(value: unknown): string {
  const text = JSON.stringify(value, null, '\t');
  if (text.includes('`')) return goLiteral(value);
  return `json.RawMessage(\`${text.replace(/\n/g, '\n\t\t')}\`)`;
}

/** Query values travel as text: `url.Values` holds strings. */
function queryLiteral(query: Record<string, unknown>): string {
  const text = (v: unknown) => JSON.stringify(typeof v === 'string' ? v : JSON.stringify(v));
  return `url.Values{${Object.entries(query)
    .map(([name, v]) => `${JSON.stringify(name)}: {${Array.isArray(v) ? v.map(text).join(', ') : text(v)}}`)
    .join(', ')}}`;
}

/**
 * `Key: value,` lines as gofmt writes them: the values of consecutive one-line entries aligned,
 * a multi-line entry aligned with nothing.
 */
function gofmtFields(fields: [string, string][], indent: string): string {
  const oneLine = (j: number) => j >= 0 && j < fields.length && !(fields[j]?.[1] ?? '\n').includes('\n');
  return fields
    .map(([key, value], i) => {
      let width = key.length;
      if (oneLine(i))
        for (const step of [-1, 1])
          for (let j = i + step; oneLine(j); j += step) width = Math.max(width, fields[j]?.[0].length ?? 0);
      return `${indent}${`${key}:`.padEnd(width + 2)}${value},`;
    })
    .join('\n');
}

const fatal = ['\tif err != nil {', '\t\tlog.Fatal(err)', '\t}'];

function client(op: SampleOperation): string[] {
  const open = (options: string) => [`\tc, err := hub.New(${BASE}${options})`, ...fatal];
  switch (op.credential) {
    case 'user':
      return [
        `\t// Acts for a user: an OAuth access token${op.scopes.length ? ` with the ${op.scopes.map((s) => `\`${s}\``).join(', ')} scope` : ''}, refreshed from the one you stored.`,
        `\toauth := &hub.OAuth{BaseURL: ${BASE}, ClientID: "app_123", RedirectURI: "https://app.example/callback"}`,
        '\ttokens, err := oauth.Refresh(ctx, os.Getenv("HUB_REFRESH_TOKEN"))',
        ...fatal,
        `\tc, err := hub.New(${BASE}, hub.WithOAuth(tokens, oauth, func(next hub.OAuthTokens) {`,
        '\t\t_ = next.RefreshToken // store it: the hub rotates refresh tokens',
        '\t}))',
        ...fatal,
      ];
    case 'apiKey':
      return open(', hub.WithAPIKey(os.Getenv("HUB_API_KEY"))');
    case 'session':
      return open(
        ',\n\t\thub.WithHeader("cookie", "hub_session="+os.Getenv("HUB_SESSION")),\n\t\thub.WithHeader("x-csrf-token", os.Getenv("HUB_CSRF")),\n\t',
      );
    case 'ingestToken':
      return open(', hub.WithHeader("authorization", "Bearer "+os.Getenv("HUB_INGEST_TOKEN"))');
    case 'none':
      return open('');
  }
}

function call(op: SampleOperation): string[] {
  if (op.eventStream)
    return [
      '\t// reconnects with Last-Event-ID: no event twice, none skipped',
      '\tfor event, err := range c.Events(hub.StreamOptions{Types: []string{"match.ended"}}).All(ctx) {',
      '\t\tif err != nil {',
      '\t\t\tlog.Fatal(err)',
      '\t\t}',
      '\t\tfmt.Println(event.EventType())',
      '\t}',
    ];
  const fields: [string, string][] = [];
  if (Object.keys(op.pathParams).length) fields.push(['Path', goLiteral(op.pathParams)]);
  if (Object.keys(op.query).length) fields.push(['Query', queryLiteral(op.query)]);
  if (op.body !== undefined) fields.push(['Body', goBody(op.body)]);
  const p = fields.length ? `&hub.Params{\n${gofmtFields(fields, '\t\t')}\n\t}` : 'nil';
  return [
    '\tvar answer any',
    `\tif _, err := c.Do(ctx, "${op.method.toUpperCase()}", "${op.path}", ${p}, &answer); err != nil {`,
    '\t\tlog.Fatal(err)',
    '\t}',
    '\tfmt.Println(answer)',
  ];
}

/** Log lines are plain text and the OAuth endpoints take a form: plain net/http. */
function plainCall(op: SampleOperation): string[] {
  const token = op.pathParams.token !== undefined;
  const url = token
    ? `"https://hub.example.com${op.path.replace('{token}', '')}"+os.Getenv("HUB_INGEST_TOKEN")`
    : `"https://hub.example.com${op.path}"`;
  const request =
    op.textBody !== undefined
      ? [
          `\treq, err := http.NewRequestWithContext(ctx, "POST", ${url}, strings.NewReader(${JSON.stringify(op.textBody)}))`,
          ...fatal,
          '\treq.Header.Set("content-type", "text/plain")',
          ...(token ? [] : ['\treq.Header.Set("authorization", "Bearer "+os.Getenv("HUB_INGEST_TOKEN"))']),
          '\tres, err := http.DefaultClient.Do(req)',
        ]
      : [
          '\t// hub.OAuth (AuthorizationURL, ExchangeCode, Refresh, Revoke) sends these requests for you.',
          `\tres, err := http.PostForm(${url}, ${queryLiteral(op.formBody ?? {})})`,
        ];
  return [
    ...request,
    ...fatal,
    '\tdefer res.Body.Close()',
    '\tbody, err := io.ReadAll(res.Body)',
    ...fatal,
    '\tfmt.Println(res.Status, string(body))',
  ];
}

const IMPORTS = ['context', 'encoding/json', 'fmt', 'io', 'log', 'net/http', 'net/url', 'os', 'strings'];

export const goSamples: CodeSampleLanguage = {
  lang: 'go',
  label: 'Go',
  sample(op) {
    const plain = op.textBody !== undefined || op.formBody !== undefined;
    const body = plain ? plainCall(op) : [...client(op), ...call(op)];
    const needsCtx = body.some((line) => line.includes('ctx'));
    const lines = [...(needsCtx ? ['\tctx := context.Background()'] : []), ...body];
    const text = lines.join('\n');
    const used = IMPORTS.filter((pkg) => new RegExp(`\\b${pkg.split('/').pop() ?? pkg}\\.`).test(text));
    const imports = [...used.map((pkg) => `\t"${pkg}"`), ...(plain ? [] : ['', `\thub "${MODULE}"`])];
    return ['package main', '', 'import (', ...imports, ')', '', 'func main() {', text, '}', ''].join('\n');
  },
};
