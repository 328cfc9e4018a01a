import createClient, { type Client, type FetchResponse, type MaybeOptionalInit } from 'openapi-fetch';
import type { HttpMethod, MediaType, PathsWithMethod, RequiredKeysOf } from 'openapi-typescript-helpers';
import { CredentialStore, type Credentials } from './credentials.js';
import { HubApiError, HubDecodeError, HubTimeoutError, type ProblemLike } from './errors.js';
import { IDEMPOTENT_OPERATIONS } from './generated/metadata.js';
import type { paths } from './generated/schema.js';
import { paginate, type ItemOf, type PagedPath } from './paging.js';
import { rateLimitOf, type RateLimitState } from './rate-limit.js';
import { EventStream, type EventStreamOptions } from './stream.js';
import {
  DEFAULT_SETTINGS,
  DEFAULT_TIMING,
  Transport,
  type RequestSettings,
  type RetryTiming,
} from './transport.js';
import { USER_AGENT } from './version.js';

export interface HubClientOptions extends Credentials, Omit<RequestSettings, 'signal'> {
  /** the hub's origin, e.g. `https://hub.example.com` (paths are written in full) */
  baseUrl: string;
  /** headers sent with every request */
  headers?: Record<string, string>;
  retryTiming?: Partial<RetryTiming>;
  /** a fetch of your own (a proxy agent, a test double); defaults to the global fetch */
  fetch?: (request: Request, init?: RequestInit) => Promise<Response>;
}

/** Per call: the operation's own options (params, body, headers) and these. */
export interface CallOptions extends RequestSettings {
  /** the `Idempotency-Key` of a write; generated once per call when the operation takes one */
  idempotencyKey?: string;
}

type Init<P extends keyof paths, M extends HttpMethod> = MaybeOptionalInit<paths[P], M>;
type Args<I> = RequiredKeysOf<I> extends never ? [init?: I & CallOptions] : [init: I & CallOptions];
/** What an operation answers on success, typed from the document. */
export type ResponseOf<P extends keyof paths, M extends HttpMethod> = NonNullable<
  FetchResponse<paths[P][M] & Record<string | number, unknown>, object, MediaType>['data']
>;

/** A conditional GET's outcome: the new copy with its ETag, or `notModified` (the copy you hold is current). */
export type Conditional<T> =
  { notModified: false; data: T; etag: string | undefined } | { notModified: true; etag: string };

/** `HeadersInit`, named without the DOM library so Node-only projects compile this package */
type HeadersLike = ConstructorParameters<typeof Headers>[0];

const isBrowser = typeof (globalThis as { document?: unknown }).document !== 'undefined';

/**
 * The Gaming Hub client: typed calls for every operation of the document (paths as the document
 * writes them), credentials, retries, paging, conditional requests and the live event stream.
 * Each instance holds its own state; make one per credential and reuse it (connections are kept alive).
 */
export class HubClient {
  /** the generated openapi-fetch client, sharing this client's transport: `{ data, error, response }` */
  readonly api: Client<paths>;
  private readonly transport: Transport;
  private readonly credentials: CredentialStore;
  private rate: RateLimitState | undefined;
  private last: Response | undefined;

  constructor(private readonly options: HubClientOptions) {
    this.credentials = new CredentialStore(options);
    const fetchImpl =
      options.fetch ?? ((request: Request, init?: RequestInit) => globalThis.fetch(request, init));
    this.transport = new Transport({
      fetch: fetchImpl,
      settings: {
        maxRetries: options.maxRetries ?? DEFAULT_SETTINGS.maxRetries,
        timeoutMs: options.timeoutMs ?? DEFAULT_SETTINGS.timeoutMs,
      },
      timing: { ...DEFAULT_TIMING, ...options.retryTiming },
      authorize: async (request) => {
        for (const [k, v] of Object.entries(options.headers ?? {}))
          if (!request.headers.has(k)) request.headers.set(k, v);
        // browsers refuse to set it (and it would cost every call a CORS preflight)
        if (!isBrowser) request.headers.set('user-agent', USER_AGENT);
        await this.credentials.authorize(request);
      },
      refreshAfter401: (request) => this.credentials.refreshAfter401(request),
      observe: (response) => {
        this.last = response;
        this.rate = rateLimitOf(response.headers) ?? this.rate;
      },
    });
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      fetch: (request) => this.transport.send(request),
    });
  }

  /** The quota state of the last response that carried one (published API keys). */
  get rateLimit(): RateLimitState | undefined {
    return this.rate;
  }

  /** The last HTTP response (its headers: request id, ETag…); its body is already read. */
  get lastResponse(): Response | undefined {
    return this.last;
  }

  /** The OAuth tokens in use, after any refresh. */
  get tokens() {
    return this.credentials.tokens;
  }

  get<P extends PathsWithMethod<paths, 'get'>>(
    path: P,
    ...init: Args<Init<P, 'get'>>
  ): Promise<ResponseOf<P, 'get'>> {
    return this.call('get', path, init[0]) as Promise<ResponseOf<P, 'get'>>;
  }
  post<P extends PathsWithMethod<paths, 'post'>>(
    path: P,
    ...init: Args<Init<P, 'post'>>
  ): Promise<ResponseOf<P, 'post'>> {
    return this.call('post', path, init[0]) as Promise<ResponseOf<P, 'post'>>;
  }
  put<P extends PathsWithMethod<paths, 'put'>>(
    path: P,
    ...init: Args<Init<P, 'put'>>
  ): Promise<ResponseOf<P, 'put'>> {
    return this.call('put', path, init[0]) as Promise<ResponseOf<P, 'put'>>;
  }
  patch<P extends PathsWithMethod<paths, 'patch'>>(
    path: P,
    ...init: Args<Init<P, 'patch'>>
  ): Promise<ResponseOf<P, 'patch'>> {
    return this.call('patch', path, init[0]) as Promise<ResponseOf<P, 'patch'>>;
  }
  delete<P extends PathsWithMethod<paths, 'delete'>>(
    path: P,
    ...init: Args<Init<P, 'delete'>>
  ): Promise<ResponseOf<P, 'delete'>> {
    return this.call('delete', path, init[0]) as Promise<ResponseOf<P, 'delete'>>;
  }

  /**
   * A GET that sends `If-None-Match: etag`: a `304` (nothing changed, and not counted against the
   * quota) comes back as `notModified` instead of an error.
   */
  async getIfChanged<P extends PathsWithMethod<paths, 'get'>>(
    path: P,
    etag: string | undefined,
    ...init: Args<Init<P, 'get'>>
  ): Promise<Conditional<ResponseOf<P, 'get'>>> {
    const options = (init[0] ?? {}) as CallOptions & { headers?: HeadersLike };
    const headers = new Headers(options.headers);
    if (etag !== undefined) headers.set('if-none-match', etag);
    const { response, data } = await this.send('get', path, { ...options, headers });
    const tag = response.headers.get('etag') ?? undefined;
    if (response.status === 304) return { notModified: true, etag: tag ?? etag ?? '' };
    return { notModified: false, data: data as ResponseOf<P, 'get'>, etag: tag };
  }

  /**
   * Every item of a list, page after page, whatever its paging: limit/offset (published API),
   * page/per_page with `{data, meta}` (/v1) or the event cursor. Stop early with `break`.
   */
  paginate<P extends PagedPath>(
    path: P,
    ...init: Args<Init<P, 'get'>>
  ): AsyncIterable<ItemOf<ResponseOf<P, 'get'>>> {
    return paginate(path, init[0] ?? {}, (query) => {
      const base = (init[0] ?? {}) as { params?: { query?: object } };
      return this.call('get', path, { ...base, params: { ...base.params, query } });
    }) as AsyncIterable<ItemOf<ResponseOf<P, 'get'>>>;
  }

  /** The live event stream (`/v1/events/stream`), resumed across disconnects. */
  events(options: EventStreamOptions = {}): EventStream {
    return new EventStream(this.options.baseUrl, this.transport, options);
  }

  private async call(method: HttpMethod, path: string, init: unknown): Promise<unknown> {
    const { data } = await this.send(method, path, init);
    return data;
  }

  private async send(
    method: HttpMethod,
    path: string,
    init: unknown,
  ): Promise<{ response: Response; data: unknown }> {
    const { maxRetries, timeoutMs, signal, idempotencyKey, ...rest } = (init ?? {}) as CallOptions & {
      headers?: HeadersLike;
    };
    const headers = new Headers(rest.headers);
    if (IDEMPOTENT_OPERATIONS.has(`${method.toUpperCase()} ${path}`) && !headers.has('idempotency-key'))
      headers.set('idempotency-key', idempotencyKey ?? crypto.randomUUID());
    const settings: RequestSettings = {
      ...(maxRetries === undefined ? {} : { maxRetries }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
      ...(signal === undefined ? {} : { signal }),
    };
    const request = this.api.request as unknown as (
      method: string,
      path: string,
      init: object,
    ) => Promise<{ data?: unknown; error?: unknown; response: Response }>;
    let result: Awaited<ReturnType<typeof request>>;
    try {
      result = await request(method, path, {
        ...rest,
        headers,
        fetch: (req: Request) => this.transport.send(req, settings),
      });
    } catch (error) {
      throw translate(error);
    }
    const { response } = result;
    if (response.ok || response.status === 304) return { response, data: result.data };
    const problem: ProblemLike =
      typeof result.error === 'object' && result.error !== null
        ? result.error
        : { detail: typeof result.error === 'string' ? result.error : '' };
    throw new HubApiError(response.status, problem, response.headers);
  }
}

/** An error of reading the answer, in this library's terms. */
function translate(error: unknown): unknown {
  if (error instanceof SyntaxError)
    return new HubDecodeError(`the answer is not JSON: ${error.message}`, 0, { cause: error });
  if (error instanceof DOMException && error.name === 'TimeoutError')
    return new HubTimeoutError('the answer did not arrive in time', { cause: error });
  return error;
}
