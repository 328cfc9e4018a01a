import { exampleFor } from '../examples.js';
import type { OpenApiDocument, ParameterObject, SchemaObject } from '../openapi-types.js';
import { goSamples } from './go.js';
import { pythonSamples } from './python.js';
import { rustSamples } from './rust.js';
import { typescriptSamples } from './typescript.js';

/**
 * The example per operation and language that the interactive reference shows (DESIGN.md,
 * "Client libraries"), as `x-codeSamples` (what Scalar reads: `{ lang, label, source }`). Each
 * language is one module with one template, fed the same facts about the operation; the tests
 * compile every sample with that language's own checker (test/code-samples.test.ts), so none can
 * rot. A language is added by writing its module and listing it in CODE_SAMPLE_LANGUAGES (and its
 * checker in the test).
 */

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** Which credential an operation takes, by the document's security requirement. */
export type SampleCredential = 'apiKey' | 'user' | 'session' | 'ingestToken' | 'none';

/** What a template needs to know of one operation. */
export interface SampleOperation {
  operationId: string;
  method: HttpMethod;
  /** the path as the document writes it, `{name}` placeholders included */
  path: string;
  /** the example of each path parameter */
  pathParams: Record<string, unknown>;
  /** the example of each required query parameter */
  query: Record<string, unknown>;
  /** the JSON body's example, when the operation takes a JSON body */
  body?: unknown;
  /** the example of a body that is text, not JSON (log lines) */
  textBody?: string;
  /** the example of a form body (the OAuth protocol endpoints, RFC 6749), which the clients' OAuth helpers send */
  formBody?: Record<string, string>;
  credential: SampleCredential;
  /** the OAuth scopes the operation names, for the comment of a user-context call */
  scopes: string[];
  /** it answers a Server-Sent Events stream: the sample reads it with the client's event iterator */
  eventStream: boolean;
}

export interface CodeSampleLanguage {
  /** Scalar's language key (syntax highlighting) */
  lang: string;
  /** the tab's label */
  label: string;
  sample(operation: SampleOperation): string;
}

/** How a language writes a value: its literals for null, booleans, a string and a key. */
export interface LiteralStyle {
  none: string;
  yes: string;
  no: string;
  key(name: string): string;
}

/**
 * A JSON value as a literal of a language: on one line when short, else one entry per line
 * indented from `indent`, with a trailing comma (both TypeScript and Python take it).
 */
export function literal(value: unknown, indent: number, style: LiteralStyle, width = 4): string {
  const write = (v: unknown, depth: number, flat: boolean): string => {
    if (v === null || v === undefined) return style.none;
    if (typeof v === 'boolean') return v ? style.yes : style.no;
    if (typeof v !== 'object') return JSON.stringify(v);
    const entries: [string | undefined, unknown][] = Array.isArray(v)
      ? v.map((item: unknown) => [undefined, item])
      : Object.entries(v as Record<string, unknown>);
    const [open, close] = Array.isArray(v) ? ['[', ']'] : ['{', '}'];
    if (entries.length === 0) return `${open}${close}`;
    const item = ([key, child]: [string | undefined, unknown], f: boolean) =>
      `${key === undefined ? '' : `${style.key(key)}: `}${write(child, depth + 1, f)}`;
    const oneLine = `${open}${Array.isArray(v) ? '' : ' '}${entries.map((e) => item(e, true)).join(', ')}${Array.isArray(v) ? '' : ' '}${close}`;
    if (flat || oneLine.length <= 60) return oneLine;
    const pad = (n: number) => ' '.repeat(indent + width * n);
    return `${open}\n${entries.map((e) => `${pad(depth + 1)}${item(e, false)},`).join('\n')}\n${pad(depth)}${close}`;
  };
  return write(value, 0, false);
}

const LOG_LINE =
  'L 11/20/2026 - 18:04:11: "Nova<2><STEAM_1:0:42><CT>" killed "Ash<3><STEAM_1:0:43><TERRORIST>" with "ak47"';

/** Every language the reference shows, in tab order. */
export const CODE_SAMPLE_LANGUAGES: readonly CodeSampleLanguage[] = [
  typescriptSamples,
  pythonSamples,
  goSamples,
  rustSamples,
];

/** The facts of one operation, read from the finished document. */
export function sampleOperation(
  doc: OpenApiDocument,
  path: string,
  method: HttpMethod,
  operation: Record<string, unknown>,
): SampleOperation {
  const components = doc.components.schemas ?? {};
  const parameters = (operation.parameters ?? []) as ParameterObject[];
  const valueOf = (p: ParameterObject) => p.example ?? (p.schema ? exampleFor(p.schema, components) : null);
  const pick = (where: ParameterObject['in'], all: boolean) =>
    Object.fromEntries(
      parameters
        .filter((p) => p.in === where && (all || p.required === true))
        .map((p) => [p.name, valueOf(p)]),
    );
  type Media = { schema?: SchemaObject; example?: unknown };
  const body = operation.requestBody as { content?: Record<string, Media> } | undefined;
  const content = body?.content ?? {};
  const json = content['application/json'];
  const text = Object.keys(content).find((type) => type.startsWith('text/'));
  const form = content['application/x-www-form-urlencoded'];
  const responses = (operation.responses ?? {}) as Record<string, { content?: Record<string, Media> }>;
  const security = (operation.security ?? doc.security ?? []) as Record<string, string[]>[];
  const schemes = security.flatMap((requirement) => Object.keys(requirement));
  const credential: SampleCredential = schemes.includes('ingestToken')
    ? 'ingestToken'
    : schemes.includes('session')
      ? 'session'
      : schemes.includes('apiKey') || schemes.includes('bearer')
        ? 'apiKey'
        : schemes.includes('oauth2')
          ? 'user'
          : 'none';
  return {
    operationId: String(operation.operationId),
    method,
    path,
    pathParams: pick('path', true),
    query: pick('query', false),
    ...(json
      ? { body: json.example ?? (json.schema ? exampleFor(json.schema, components) : {}) }
      : // the log routes read text lines (the document describes no JSON body for them)
        text !== undefined || path.startsWith('/api-platform/ingest/logs')
        ? { textBody: LOG_LINE }
        : form
          ? {
              formBody: formExample(form.example ?? (form.schema ? exampleFor(form.schema, components) : {})),
            }
          : {}),
    credential,
    scopes: security.flatMap((requirement) => requirement.oauth2 ?? []),
    eventStream: responses['200']?.content?.['text/event-stream'] !== undefined,
  };
}

/** A form's fields as text, as they travel (`a=1&b=x`). */
function formExample(value: unknown): Record<string, string> {
  const fields = typeof value === 'object' && value !== null ? Object.entries(value) : [];
  return Object.fromEntries(fields.map(([name, v]) => [name, typeof v === 'string' ? v : JSON.stringify(v)]));
}

/** Adds every language's sample to every operation of the document's paths. */
export function withCodeSamples(doc: OpenApiDocument): OpenApiDocument {
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(item)) {
      const facts = sampleOperation(
        doc,
        path,
        method as HttpMethod,
        operation as unknown as Record<string, unknown>,
      );
      operation['x-codeSamples'] = CODE_SAMPLE_LANGUAGES.map((language) => ({
        lang: language.lang,
        label: language.label,
        source: language.sample(facts),
      }));
    }
  }
  return doc;
}
