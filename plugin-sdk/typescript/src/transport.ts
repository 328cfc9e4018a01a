/** One HTTP call to the hub, with the token, a timeout and the failure modes told apart. */
export type Status = number | 'network error' | 'timeout';

export interface Answer {
  status: Status;
  headers: Headers;
  body: unknown;
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export interface TransportOptions {
  hubUrl: string;
  token: string;
  userAgent: string;
  fetch?: FetchLike;
}

export class Transport {
  private readonly base: string;
  private readonly fetch: FetchLike;

  constructor(private readonly options: TransportOptions) {
    this.base = options.hubUrl.replace(/\/+$/, '');
    this.fetch = options.fetch ?? ((input, init) => fetch(input, init));
  }

  /** Never throws for the hub's sake: a refused connection is `network error`, silence `timeout`. */
  async call(
    method: 'GET' | 'POST',
    path: string,
    body: unknown,
    timeoutMs: number,
    stop?: AbortSignal,
  ): Promise<Answer> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const signal = stop ? AbortSignal.any([stop, timeout]) : timeout;
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.options.token}`,
      'user-agent': this.options.userAgent,
      accept: 'application/json',
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      const res = await this.fetch(`${this.base}/api-platform/ingest${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
        signal,
      });
      const text = await res.text();
      let parsed: unknown = undefined;
      try {
        parsed = text === '' ? undefined : JSON.parse(text);
      } catch {
        parsed = text;
      }
      return { status: res.status, headers: res.headers, body: parsed };
    } catch {
      return {
        status: timeout.aborted ? 'timeout' : 'network error',
        headers: new Headers(),
        body: undefined,
      };
    }
  }
}

/** An answer the hub gave as a problem (RFC 9457), raised by the direct calls (link, linkCode). */
export class HubError extends Error {
  constructor(
    readonly status: Status,
    readonly code: string | undefined,
    detail: string,
  ) {
    super(detail);
    this.name = 'HubError';
  }

  static of(answer: Answer): HubError {
    const problem = (typeof answer.body === 'object' && answer.body !== null ? answer.body : {}) as {
      code?: string;
      detail?: string;
      title?: string;
    };
    return new HubError(
      answer.status,
      problem.code,
      problem.detail ?? problem.title ?? `the hub answered ${String(answer.status)}`,
    );
  }
}
