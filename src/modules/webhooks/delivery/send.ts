import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { parseRetryAfter } from './retry-after.js';
import { signWebhook } from './sign.js';
import { checkTarget, hostOf, type ResolvedAddress, type Resolver } from './ssrf.js';

export const DEFAULT_TIMEOUT_MS = 15_000;
/** What a delivery log keeps of a receiver's answer. */
export const BODY_EXCERPT_BYTES = 1024;
/** Read past the excerpt (and thrown away) so the connection can be reused; more closes it. */
const DRAIN_LIMIT_BYTES = 64 * 1024;
const MAX_HEADERS = 50;
const USER_AGENT = 'GamingHub-Webhooks/1.0 (+https://www.standardwebhooks.com/)';

export interface SendRequest {
  url: string;
  /** the JSON body, exactly as signed */
  body: string;
  /** the event id: `webhook-id` */
  eventId: string;
  /** every live secret of the endpoint (two during a rotation) */
  secrets: readonly string[];
  timeoutMs?: number;
  /** WEBHOOKS_ALLOW_PRIVATE_TARGETS: only tests and private deployments */
  allowPrivate: boolean;
  /** signing time (tests) */
  now?: () => number;
  /** DNS (tests) */
  resolve?: Resolver;
}

/** The receiver answered. `ok` is 2xx; a redirect is not followed and is a failure. */
export interface SendResponse {
  ok: boolean;
  status: number;
  latencyMs: number;
  headers: Record<string, string>;
  bodyExcerpt: string;
  /** `Retry-After` of the answer, as a delay from now (unbounded: the scheduler bounds it) */
  retryAfterMs?: number;
  error?: undefined;
}

export type SendErrorKind =
  'invalid_url' | 'dns_failed' | 'forbidden_address' | 'timeout' | 'connection_failed' | 'tls_failed';

/** No answer: the request could not be made or the receiver did not answer in time. */
export interface SendFailure {
  ok: false;
  status?: undefined;
  error: SendErrorKind;
  message: string;
  latencyMs: number;
}

export type SendResult = SendResponse | SendFailure;

// Keep-alive pools: one receiver gets many deliveries, and a TLS handshake per delivery would cost
// more than the delivery. Sockets are keyed by host:port and were opened to a checked address.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 64, timeout: 30_000 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64, maxFreeSockets: 64, timeout: 30_000 }),
};

/** A lookup that answers with the addresses already checked, so the connection goes to one of them. */
function pinnedLookup(addresses: ResolvedAddress[]): LookupFunction {
  return (_host, options, callback) => {
    if (options.all) callback(null, addresses);
    else {
      const first = addresses.find((a) => !options.family || a.family === options.family) ?? addresses[0];
      if (first) callback(null, first.address, first.family);
      else callback(new Error('no checked address'), '', 4);
    }
  };
}

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers).slice(0, MAX_HEADERS)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function failureKind(err: unknown): SendErrorKind {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') return 'connection_failed';
  if (code.startsWith('ERR_TLS') || code.includes('CERT') || code.startsWith('ERR_SSL')) return 'tls_failed';
  return 'connection_failed';
}

/**
 * Sends one signed webhook: resolves and checks the target (ssrf.ts), connects to the checked
 * address (the name is kept for `Host` and TLS SNI/certificate checks), POSTs the body with the
 * Standard Webhooks headers and reads at most a 1 KiB excerpt of the answer. Never follows a
 * redirect. The whole exchange has `timeoutMs` (15 s) to finish. Never throws.
 */
export async function sendSignedWebhook(request: SendRequest): Promise<SendResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = new URL(request.url);
  } catch {
    return { ok: false, error: 'invalid_url', message: 'the URL does not parse', latencyMs: 0 };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return {
      ok: false,
      error: 'invalid_url',
      message: 'only http and https URLs receive webhooks',
      latencyMs: 0,
    };
  if (url.username || url.password)
    return { ok: false, error: 'invalid_url', message: 'a webhook URL carries no credentials', latencyMs: 0 };
  const host = hostOf(url);
  const target = await checkTarget(host, request.allowPrivate, request.resolve);
  if (!target.ok) return { ok: false, error: target.kind, message: target.message, latencyMs: elapsed() };

  const now = request.now ?? Date.now;
  const signature = signWebhook(request.eventId, request.body, request.secrets, now());
  const timeoutMs = request.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const transport = url.protocol === 'https:' ? https : http;

  return new Promise<SendResult>((resolve) => {
    let settled = false;
    const finish = (result: SendResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const req = transport.request(
      {
        protocol: url.protocol,
        hostname: host,
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        agent: agents[url.protocol as 'http:' | 'https:'],
        lookup: pinnedLookup(target.addresses),
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(request.body),
          'user-agent': USER_AGENT,
          ...signature,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let kept = 0;
        let read = 0;
        res.on('data', (chunk: Buffer) => {
          read += chunk.length;
          if (kept < BODY_EXCERPT_BYTES) {
            const part = chunk.subarray(0, BODY_EXCERPT_BYTES - kept);
            chunks.push(part);
            kept += part.length;
          }
          if (read > DRAIN_LIMIT_BYTES) {
            res.destroy();
            done();
          }
        });
        const done = () => {
          const status = res.statusCode ?? 0;
          const retryAfterMs = parseRetryAfter(res.headers['retry-after'], now());
          finish({
            ok: status >= 200 && status < 300,
            status,
            latencyMs: elapsed(),
            headers: flattenHeaders(res.headers),
            bodyExcerpt: Buffer.concat(chunks).toString('utf8'),
            ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
          });
        };
        res.on('end', done);
        res.on('error', done);
        res.on('aborted', done);
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      finish({
        ok: false,
        error: 'timeout',
        message: `no complete answer within ${timeoutMs} ms`,
        latencyMs: elapsed(),
      });
    }, timeoutMs);
    req.on('error', (err) => {
      finish({ ok: false, error: failureKind(err), message: err.message, latencyMs: elapsed() });
    });
    req.end(request.body);
  });
}
