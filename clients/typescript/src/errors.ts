import type { components } from './generated/schema.js';
import type { HubErrorCode } from './generated/metadata.js';

/** An RFC 9457 problem document, as every error answer of the hub carries. */
export type Problem = components['schemas']['Problem'];
/** What an error answer carried: a problem document, or what could be read of another body. */
export type ProblemLike = Partial<Omit<Problem, 'code'>> & { code?: string };

/** Every error this library throws. Branch on the subclass, then on `code` for an API error. */
export class HubError extends Error {
  override name = 'HubError';
}

/** The hub answered with an error status; the problem document says why. */
export class HubApiError extends HubError {
  override name = 'HubApiError';
  readonly status: number;
  /** the machine-readable code: compare it with `HubErrorCode.*` */
  readonly code: HubErrorCode | (string & {});
  readonly title: string;
  readonly detail: string;
  /** the request id (`x-request-id`): quote it when reporting an issue */
  readonly requestId: string | undefined;
  readonly problem: ProblemLike;
  readonly headers: Headers;

  constructor(status: number, problem: ProblemLike, headers: Headers) {
    super(`${status} ${problem.code ?? 'error'}: ${problem.detail ?? problem.title ?? 'no detail'}`);
    this.status = status;
    this.problem = problem;
    this.headers = headers;
    this.code = problem.code ?? `http_${status}`;
    this.title = problem.title ?? '';
    this.detail = problem.detail ?? '';
    this.requestId = problem.instance ?? headers.get('x-request-id') ?? undefined;
  }
}

/** The request never got an answer: refused, reset or dropped connection, DNS failure. */
export class HubConnectionError extends HubError {
  override name = 'HubConnectionError';
}

/** No answer within the timeout (per attempt). */
export class HubTimeoutError extends HubError {
  override name = 'HubTimeoutError';
}

/** The hub answered, but not with what the document promises (not JSON, a cut body). */
export class HubDecodeError extends HubError {
  override name = 'HubDecodeError';
  readonly status: number;
  constructor(message: string, status: number, options?: ErrorOptions) {
    super(message, options);
    this.status = status;
  }
}

/** The HubApiError for an error answer, whatever its body (a proxy's HTML page included). */
export async function apiErrorOf(response: Response): Promise<HubApiError> {
  const text = await response.text().catch(() => '');
  let problem: ProblemLike = {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (typeof parsed === 'object' && parsed !== null) problem = parsed;
  } catch {
    problem = { detail: text.slice(0, 200) };
  }
  return new HubApiError(response.status, problem, response.headers);
}
