import { Type, type Static } from 'typebox';

/**
 * The closed list of error codes. Each has a stable `type` URI, a fixed title and status;
 * the detail says what happened in this request. Adding a code here documents it everywhere.
 */
export const ERRORS = {
  invalid_parameter: { status: 400, title: 'Invalid parameter' },
  invalid_body: { status: 400, title: 'Invalid request body' },
  bad_request: { status: 400, title: 'Malformed HTTP request' },
  invalid_amount: { status: 400, title: 'Invalid amount' },
  missing_api_key: { status: 401, title: 'API key required' },
  invalid_api_key: { status: 401, title: 'Invalid API key' },
  unauthenticated: { status: 401, title: 'Sign-in required' },
  invalid_token: { status: 401, title: 'Invalid token' },
  invalid_server_token: { status: 401, title: 'Invalid server token' },
  missing_token: { status: 401, title: 'Access token required' },
  forbidden: { status: 403, title: 'Forbidden' },
  csrf_failed: { status: 403, title: 'CSRF check failed' },
  origin_not_allowed: { status: 403, title: 'Origin not allowed' },
  insufficient_scope: { status: 403, title: 'Insufficient scope' },
  user_context_required: { status: 403, title: 'User token required' },
  clan_role_required: { status: 403, title: 'Clan role required' },
  clan_closed: { status: 403, title: 'Clan closed to new members' },
  clan_invite_required: { status: 403, title: 'Clan invite required' },
  server_operator_required: { status: 403, title: 'Server operator required' },
  not_found: { status: 404, title: 'Not found' },
  user_not_found: { status: 404, title: 'User not found' },
  thread_not_found: { status: 404, title: 'Thread not found' },
  server_not_found: { status: 404, title: 'Server not found' },
  key_not_found: { status: 404, title: 'API key not found' },
  clan_not_found: { status: 404, title: 'Clan not found' },
  clan_member_not_found: { status: 404, title: 'Clan member not found' },
  clan_invite_not_found: { status: 404, title: 'Clan invite not found' },
  webhook_not_found: { status: 404, title: 'Webhook not found' },
  delivery_not_found: { status: 404, title: 'Webhook delivery not found' },
  command_not_found: { status: 404, title: 'Command not found' },
  link_code_invalid: { status: 404, title: 'Link code invalid' },
  identity_link_not_found: { status: 404, title: 'Identity link not found' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  not_acceptable: { status: 406, title: 'Not acceptable' },
  request_timeout: { status: 408, title: 'Request timeout' },
  conflict: { status: 409, title: 'Conflict' },
  key_limit_reached: { status: 409, title: 'Key limit reached' },
  idempotency_key_in_use: { status: 409, title: 'Idempotency key in use' },
  clan_name_taken: { status: 409, title: 'Clan name taken' },
  clan_tag_taken: { status: 409, title: 'Clan tag taken' },
  already_in_clan: { status: 409, title: 'Already in a clan of this game' },
  clan_full: { status: 409, title: 'Clan full' },
  clan_owner_must_transfer: { status: 409, title: 'Owner must transfer the clan first' },
  clan_role_conflict: { status: 409, title: 'Role change not possible' },
  clan_max_members_too_low: { status: 409, title: 'Maximum below the member count' },
  rcon_not_configured: { status: 409, title: 'Remote console not configured' },
  command_expired: { status: 409, title: 'Command expired' },
  token_superseded: { status: 409, title: 'Token already replaced' },
  identity_linked: { status: 409, title: 'Identity already linked' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  uri_too_long: { status: 414, title: 'URI too long' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  unprocessable: { status: 422, title: 'Unprocessable request' },
  invalid_webhook_url: { status: 422, title: 'Webhook URL not allowed' },
  unknown_event_type: { status: 422, title: 'Unknown event type' },
  idempotency_key_reused: { status: 422, title: 'Idempotency key reused' },
  self_transfer: { status: 422, title: 'Transfer to yourself' },
  recipient_not_found: { status: 422, title: 'Unknown recipient' },
  insufficient_funds: { status: 422, title: 'Insufficient funds' },
  rate_limited: { status: 429, title: 'Rate limit exceeded' },
  too_many_attempts: { status: 429, title: 'Too many attempts' },
  key_creation_limited: { status: 429, title: 'Key creation limit reached' },
  headers_too_large: { status: 431, title: 'Request header fields too large' },
  internal_error: { status: 500, title: 'Internal server error' },
  rcon_unreachable: { status: 502, title: 'Game server unreachable' },
  rcon_auth_failed: { status: 502, title: 'RCON password refused' },
  rcon_protocol_error: { status: 502, title: 'Game server answered out of protocol' },
  service_unavailable: { status: 503, title: 'Service unavailable' },
  rcon_timeout: { status: 504, title: 'Game server timed out' },
} as const satisfies Record<string, { status: number; title: string }>;

export type ErrorCode = keyof typeof ERRORS;

export const PROBLEM_TYPE_BASE = '/api-platform/problems/';

export const problemType = (code: ErrorCode): string => PROBLEM_TYPE_BASE + code;

export interface InvalidParam {
  in: 'query' | 'path' | 'body' | 'header';
  name: string;
  reason: string;
}

/** Thrown anywhere; the error handler turns it into an RFC 9457 problem response. */
export class ProblemError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extras: { headers?: Record<string, string>; invalidParams?: InvalidParam[] } = {},
  ) {
    super(detail);
    this.status = ERRORS[code].status;
  }
}

export const ProblemSchema = Type.Object(
  {
    type: Type.String({
      description: 'stable URI identifying the error code',
      examples: ['/api-platform/problems/invalid_parameter'],
    }),
    title: Type.String({ description: 'short, fixed summary of the error code' }),
    status: Type.Integer({ description: 'the HTTP status code' }),
    detail: Type.String({ description: 'what went wrong in this request' }),
    instance: Type.String({ description: 'the request id, also sent as the x-request-id header' }),
    code: Type.String({ description: 'machine-readable error code', enum: Object.keys(ERRORS) }),
    errors: Type.Optional(
      Type.Array(
        Type.Object({
          in: Type.String({ enum: ['query', 'path', 'body', 'header'] }),
          name: Type.String(),
          reason: Type.String(),
        }),
        { description: 'one entry per invalid parameter' },
      ),
    ),
  },
  { $id: 'Problem', title: 'Problem', description: 'RFC 9457 problem details' },
);

export type Problem = Static<typeof ProblemSchema>;

export function problemBody(
  code: ErrorCode,
  detail: string,
  instance: string,
  errors?: InvalidParam[],
): Problem {
  const { status, title } = ERRORS[code];
  return { type: problemType(code), title, status, detail, instance, code, ...(errors ? { errors } : {}) };
}

/** Response-schema entries for a route's documented errors, keyed by status. */
export function errorResponses(
  ...codes: ErrorCode[]
): Record<number, ReturnType<typeof Type.Unsafe<Problem>>> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes)
    byStatus.set(ERRORS[code].status, [...(byStatus.get(ERRORS[code].status) ?? []), code]);
  const out: Record<number, ReturnType<typeof Type.Unsafe<Problem>>> = {};
  for (const [status, list] of byStatus) {
    out[status] = Type.Unsafe<Problem>({
      $ref: 'Problem#',
      description: list.map((code) => `\`${code}\`: ${ERRORS[code].title}`).join('; '),
      // read by the OpenAPI generator to give one example per code; serialisation ignores it
      'x-problem-codes': list,
    });
  }
  return out;
}
