import { ERRORS, problemBody, type ErrorCode } from '../problem.js';
import { EXAMPLE_REQUEST_ID } from '../paths.js';
import { PROBLEM_HELP } from '../problem-help.js';
import { exampleFor, invalidParamExample } from './examples.js';
import { withCodeSamples } from './code-samples/index.js';
import { withNamedSchemas } from './named-schemas.js';
import { withPlainUnions } from './plain-unions.js';
import type {
  HeaderObject,
  MediaTypeObject,
  OpenApiDocument,
  OperationObject,
  ParameterObject,
  ReferenceObject,
  ResponseObject,
} from './openapi-types.js';

/**
 * What a route declares beyond its schema, carried from the route (`transform`) to the finished
 * document as `x-` extensions on the operation, and removed once applied.
 */
export const MARK = {
  auth: 'x-hub-auth',
  cache: 'x-hub-cache',
  problems: 'x-hub-problems',
  idempotency: 'x-hub-idempotency',
  protocolErrors: 'x-hub-protocol-errors',
  /** per status, the example a named (`$ref`) answer declared beside its reference */
  examples: 'x-hub-examples',
} as const;

export type ProblemCodesByStatus = Record<string, ErrorCode[]>;

const EXAMPLE_ETAG = '"VH7er8G9olS2avWaXp-bhygVhW4"';

/** Response headers shared by every operation, documented once under `components.headers`. */
export const RESPONSE_HEADERS: Record<string, HeaderObject> = {
  'x-ratelimit-limit': {
    description: 'Requests this key may make in the current one-hour window (its tier quota).',
    schema: { type: 'integer', minimum: 0 },
    example: 1000,
  },
  'x-ratelimit-remaining': {
    description: 'Requests left in the current window.',
    schema: { type: 'integer', minimum: 0 },
    example: 958,
  },
  'x-ratelimit-used': {
    description: 'Requests counted in the current window, this one included (a 304 is not counted).',
    schema: { type: 'integer', minimum: 0 },
    example: 42,
  },
  'x-ratelimit-reset': {
    description: 'When the current window ends and the quota resets, in epoch seconds (a UTC hour boundary).',
    schema: { type: 'integer', minimum: 0 },
    example: 1763751600,
  },
  'RateLimit-Policy': {
    description: 'IETF draft quota policy: quota `q` per window of `w` seconds.',
    schema: { type: 'string' },
    example: '"hourly";q=1000;w=3600',
  },
  RateLimit: {
    description: 'IETF draft quota state: `r` requests remaining, `t` seconds until the window resets.',
    schema: { type: 'string' },
    example: '"hourly";r=958;t=1260',
  },
  ETag: {
    description: 'Entity tag of the representation; send it in `If-None-Match` to revalidate.',
    schema: { type: 'string' },
    example: EXAMPLE_ETAG,
  },
  'Retry-After': {
    description: 'Seconds to wait before the quota allows another request.',
    schema: { type: 'integer', minimum: 1 },
    example: 1260,
  },
  'WWW-Authenticate': {
    description:
      'How to authenticate: an API key in the `x-api-key` header (published API), or a bearer token (`/v1`, RFC 6750: `error` and the missing `scope` on a 401 or 403).',
    schema: { type: 'string' },
    example: 'ApiKey header="x-api-key"',
  },
  'Idempotent-Replayed': {
    description:
      '`true` when this answer is the stored answer of an earlier request with the same `Idempotency-Key` (the operation did not run again).',
    schema: { type: 'string', enum: ['true'] },
    example: 'true',
  },
  'x-request-id': {
    description: 'Id of this request, the same as `instance` in a problem; quote it when reporting an issue.',
    schema: { type: 'string' },
    example: EXAMPLE_REQUEST_ID,
  },
};

const QUOTA_HEADERS = [
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-used',
  'x-ratelimit-reset',
  'RateLimit-Policy',
  'RateLimit',
];

const headerRef = (name: string): ReferenceObject => ({ $ref: `#/components/headers/${name}` });

const IF_NONE_MATCH: ParameterObject = {
  name: 'If-None-Match',
  in: 'header',
  required: false,
  description:
    'The `ETag` of a copy you hold. If the resource is unchanged the answer is `304 Not Modified` with no body, and it does not count against the quota.',
  // no example: the reference would pre-fill it into every request it sends
  schema: { type: 'string' },
};

const NOT_MODIFIED: ResponseObject = {
  description:
    'Not Modified: the resource still matches the `ETag` sent in `If-None-Match`. No body; not counted against the quota.',
};

/** The `Idempotency-Key` request header of a state-changing preview route. */
const idempotencyKeyParameter = (required: boolean): ParameterObject => ({
  name: 'Idempotency-Key',
  in: 'header',
  required,
  description:
    'A unique value per operation (a UUID, say; 1 to 255 printable ASCII characters), sent again unchanged on retries. The first answer is stored for 24 hours per credential and replayed to a retry with the same body (`Idempotent-Replayed: true`); the same key with another body is `422 idempotency_key_reused`, and a retry while the first request runs is `409 idempotency_key_in_use`.' +
    (required ? ' Required on this operation.' : ''),
  schema: { type: 'string', minLength: 1, maxLength: 255 },
  example: '6f1c1f8e-3b0a-4c51-9d39-2a8f5f0e8a11',
});

function addHeaders(response: ResponseObject, names: string[]): void {
  response.headers = { ...response.headers, ...Object.fromEntries(names.map((n) => [n, headerRef(n)])) };
}

/** One example problem per code the status can carry; a 400 shows the operation's own parameter. */
function problemMedia(operation: OperationObject, codes: ErrorCode[]): MediaTypeObject {
  const examples = Object.fromEntries(
    codes.map((code) => {
      const invalid =
        code === 'invalid_parameter'
          ? (operation.parameters ?? []).map(invalidParamExample).find((e) => e !== undefined)
          : undefined;
      const detail = invalid
        ? `${invalid.param.in} parameter '${invalid.param.name}' ${invalid.param.reason}`
        : PROBLEM_HELP[code].example;
      const value = problemBody(code, detail, EXAMPLE_REQUEST_ID, invalid ? [invalid.param] : undefined);
      return [code, { summary: ERRORS[code].title, value }];
    }),
  );
  return { schema: { $ref: '#/components/schemas/Problem' }, examples };
}

function completeOperation(doc: OpenApiDocument, operation: OperationObject): void {
  const auth = operation[MARK.auth];
  const cache = operation[MARK.cache] === true;
  const problems = (operation[MARK.problems] ?? {}) as ProblemCodesByStatus;
  const idempotency = operation[MARK.idempotency];
  const protocolErrors = operation[MARK.protocolErrors] === true;
  const examples = (operation[MARK.examples] ?? {}) as Record<string, unknown>;
  for (const mark of Object.values(MARK)) Reflect.deleteProperty(operation, mark);

  const responses = operation.responses;
  if (idempotency === 'required' || idempotency === 'optional')
    operation.parameters = [
      ...(operation.parameters ?? []),
      idempotencyKeyParameter(idempotency === 'required'),
    ];
  if (cache) {
    if (!operation.parameters?.some((p) => p.in === 'header' && p.name.toLowerCase() === 'if-none-match'))
      operation.parameters = [...(operation.parameters ?? []), { ...IF_NONE_MATCH }];
    responses['304'] ??= { ...NOT_MODIFIED };
  }

  for (const [status, response] of Object.entries(responses)) {
    const code = Number(status);
    const headers: string[] = [];
    if ((code === 200 || code === 304) && cache) headers.push('ETag');
    // The quota is reported on every answer to a valid credential; a 401 happens before there is
    // one, and a bearer route's 403 (scope) before anything is counted.
    const keyed = auth === 'apiKey' || auth === 'bearer';
    if (keyed && code !== 401 && !(auth === 'bearer' && code === 403)) headers.push(...QUOTA_HEADERS);
    if (keyed && (code === 401 || (auth === 'bearer' && code === 403))) headers.push('WWW-Authenticate');
    if (code === 429 || (code === 409 && idempotency !== undefined)) headers.push('Retry-After');
    if (code < 300 && idempotency !== undefined) headers.push('Idempotent-Replayed');
    headers.push('x-request-id');
    addHeaders(response, headers);

    if (code >= 400 && !protocolErrors) {
      const codes = problems[status] ?? [];
      response.content = { 'application/problem+json': problemMedia(operation, codes) };
    } else if (code >= 200 && code < 300) {
      for (const media of Object.values(response.content ?? {})) {
        if (media.schema && media.example === undefined && media.examples === undefined)
          media.example = examples[status] ?? exampleFor(media.schema, doc.components.schemas ?? {});
      }
    }
  }
}

/**
 * Finishes the generated document in one place, so every route gets the same treatment from what
 * it declares: quota/ETag/request-id headers, the `If-None-Match` parameter and `304`, challenge
 * and retry headers, problem+json media with an example per error code, and a 2xx example built
 * from the field examples of the response schema.
 */
export function completeDocument(doc: OpenApiDocument): OpenApiDocument {
  doc.components.headers = { ...doc.components.headers, ...RESPONSE_HEADERS };
  const used = new Set<string>();
  for (const pathItem of Object.values(doc.paths)) {
    for (const operation of Object.values(pathItem)) {
      completeOperation(doc, operation);
      for (const tag of operation.tags ?? []) used.add(tag);
    }
  }
  // A reference shows every declared tag as a group: keep only the groups that have operations.
  if (doc.tags) doc.tags = doc.tags.filter((tag) => used.has(tag.name));
  return withCodeSamples(withPlainUnions(withNamedSchemas(doc)));
}
