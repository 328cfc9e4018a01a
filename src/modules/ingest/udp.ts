import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import type { IngestRecorder } from '../../http/metrics.js';
import { parseLogPacket } from './parsers/goldsrc-log.js';
import type { LogLine } from './parsers/cs2-log.js';
import { parseLogLine } from './parsers/log-line.js';
import type { IngestPipeline } from './pipeline.js';
import type { IngestServer, ServersRepo } from '../servers/repo.js';
import { hashToken, TOKEN_PATTERN } from '../servers/tokens.js';

/**
 * UDP log receiver for `logaddress_add` (CS 1.6 and other GoldSrc/Source servers). A datagram is
 * accepted only when it carries a registered server's token as its log secret (`sv_logsecret`)
 * AND comes from that server's registered IP: UDP source addresses can be spoofed, the secret
 * alone could leak from a config file, so both are required. Lines are buffered per server and
 * applied in batches (one transaction each) every `flushMs`, in arrival order. A batch the database
 * refuses is kept and retried; on close (SIGTERM) the datagrams still waiting in the socket are read
 * and everything buffered is applied before the process exits. What a kill -9 loses is what was
 * buffered: at most `flushMs` of lines (longer only while the database refuses them).
 *
 * The socket asks the kernel for a large receive buffer (`recvBufferBytes`): while a flush runs
 * (synchronous SQLite work) nothing reads the socket, and a burst beyond the default buffer
 * (about 200 KiB on Linux, a few hundred datagrams) would be dropped by the kernel, unseen.
 */
export interface UdpIngestOptions {
  port: number;
  host?: string;
  flushMs?: number;
  /** how long a token/address check is remembered; revocation applies within this time */
  authCacheMs?: number;
  /** how long `close()` keeps retrying a failing flush before it gives the lines up */
  closeTimeoutMs?: number;
  /** SO_RCVBUF to ask for (0: the OS default); the OS may grant less (Linux: capped by net.core.rmem_max) */
  recvBufferBytes?: number;
  onError?: (err: unknown) => void;
  metrics?: IngestRecorder;
}

export interface UdpIngest {
  port: number;
  /** the socket receive buffer the OS granted, in bytes (Linux reports twice what it was asked) */
  recvBufferBytes: number;
  /** datagrams: buffered to apply, refused (malformed or out of the time window), unauthorized */
  stats: { accepted: number; rejected: number; unauthorized: number };
  /**
   * What became of buffered lines: `applied` (including `duplicates` already applied before),
   * `retries` of failed flushes, `dropped` lines given up (over the buffer cap, or at close).
   */
  delivery: { applied: number; duplicates: number; retries: number; dropped: number; pending: number };
  /** applies everything buffered so far (a failed server batch stays buffered, to retry) */
  flush(): Promise<void>;
  /** stops receiving and applies what is buffered, retrying for up to `closeTimeoutMs` */
  close(): Promise<void>;
}

/** Lines of one server that trigger a flush at once. */
const FLUSH_AT = 5000;
/**
 * Lines kept per server while the database refuses them (it is down, or locked for long): beyond
 * this the oldest are dropped, counted and reported, so memory stays bounded.
 */
const MAX_PENDING = 200_000;
const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 30_000;
export const UDP_RECV_BUFFER_BYTES = 4 * 1024 * 1024;
/** At close, the socket is read until it stays empty this long (datagrams sent before the signal). */
const DRAIN_QUIET_MS = 20;
const unmap = (address: string) => (address.startsWith('::ffff:') ? address.slice(7) : address);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startUdpIngest(
  servers: ServersRepo,
  pipeline: IngestPipeline,
  options: UdpIngestOptions,
): Promise<UdpIngest> {
  const flushMs = options.flushMs ?? 250;
  const authCacheMs = options.authCacheMs ?? 5000;
  const closeTimeoutMs = options.closeTimeoutMs ?? 10_000;
  const auth = new Map<string, { server: IngestServer | null; until: number }>();
  const buffers = new Map<number, { server: IngestServer; lines: LogLine[] }>();
  const stats = { accepted: 0, rejected: 0, unauthorized: 0 };
  const delivery = { applied: 0, duplicates: 0, retries: 0, dropped: 0, pending: 0 };
  let timer: NodeJS.Timeout | undefined;
  let retryMs = 0;
  let queue: Promise<void> = Promise.resolve();
  let received = 0;
  let flushing: Promise<void> = Promise.resolve();

  async function authenticate(secret: string, address: string): Promise<IngestServer | null> {
    const key = `${address}|${secret}`;
    const cached = auth.get(key);
    if (cached && cached.until > Date.now()) return cached.server;
    let server: IngestServer | null = null;
    if (TOKEN_PATTERN.test(secret)) {
      const found = await servers.findByTokenHash(hashToken(secret));
      if (found && unmap(found.ip) === address) server = found;
    }
    if (auth.size > 10_000) auth.clear();
    auth.set(key, { server, until: Date.now() + authCacheMs });
    return server;
  }

  const schedule = (ms: number) => (timer ??= setTimeout(() => void flush(), ms));

  function buffer(server: IngestServer, lines: LogLine[], front = false): void {
    let b = buffers.get(server.id);
    if (!b) buffers.set(server.id, (b = { server, lines: [] }));
    b.lines = front ? [...lines, ...b.lines] : b.lines.concat(lines);
    delivery.pending += lines.length;
    const over = b.lines.length - MAX_PENDING;
    if (over > 0) {
      b.lines.splice(0, over);
      delivery.pending -= over;
      delivery.dropped += over;
      options.onError?.(
        new Error(`UDP log buffer of server ${server.id} full: ${over} oldest lines dropped`),
      );
    }
  }

  async function handle(msg: Buffer, rinfo: RemoteInfo): Promise<void> {
    const packet = parseLogPacket(msg);
    if (!packet) {
      stats.rejected++;
      options.metrics?.received('udp', 0, 1);
      return;
    }
    const server = packet.secret ? await authenticate(packet.secret, unmap(rinfo.address)) : null;
    if (!server) {
      stats.unauthorized++;
      options.metrics?.unauthorized('udp');
      return;
    }
    const parsed = parseLogLine(packet.line);
    if (!parsed.ok || pipeline.eventRejection(parsed.event) !== null) {
      stats.rejected++;
      options.metrics?.received('udp', 0, 1);
      return;
    }
    stats.accepted++;
    options.metrics?.received('udp', 1, 0);
    buffer(server, [{ line: 0, text: packet.line, event: parsed.event }]);
    if ((buffers.get(server.id)?.lines.length ?? 0) >= FLUSH_AT && retryMs === 0) void flush();
    else schedule(retryMs || flushMs);
  }

  /**
   * Applies each server's lines in one batch. A batch that fails is put back in front of what
   * arrived meanwhile (order kept) and retried with a growing delay: a resend of lines that did
   * commit is recognised (line-dedupe.ts), so retrying never doubles them.
   */
  function flush(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    const batches = [...buffers.values()];
    buffers.clear();
    flushing = flushing.then(async () => {
      let failed = false;
      for (const { server, lines } of batches) {
        delivery.pending -= lines.length;
        try {
          const r = await pipeline.ingestLogLines(server, lines, 'line');
          delivery.applied += lines.length;
          delivery.duplicates += r.duplicates;
          options.metrics?.kills('udp', r.kills);
        } catch (err) {
          failed = true;
          buffer(server, lines, true);
          options.onError?.(err);
        }
      }
      if (failed) {
        retryMs = Math.min(Math.max(retryMs * 2, RETRY_MIN_MS), RETRY_MAX_MS);
        delivery.retries++;
        schedule(retryMs);
      } else retryMs = 0;
    });
    return flushing;
  }

  const socket: Socket = createSocket({ type: options.host?.includes(':') ? 'udp6' : 'udp4' });
  socket.on('message', (msg, rinfo) => {
    received++;
    queue = queue.then(() => handle(msg, rinfo)).catch((err: unknown) => options.onError?.(err));
  });
  // A failed bind (the port in use) is the caller's to explain, once: errors go to onError only
  // once the socket is bound.
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(options.port, options.host ?? '0.0.0.0', () => {
      socket.off('error', reject);
      resolve();
    });
  });
  socket.on('error', (err) => options.onError?.(err));
  const recvBufferBytes = options.recvBufferBytes ?? UDP_RECV_BUFFER_BYTES;
  if (recvBufferBytes > 0) {
    try {
      socket.setRecvBufferSize(recvBufferBytes);
    } catch (err) {
      options.onError?.(err); // receiving still works, with the OS default buffer
    }
  }

  /**
   * Reads what is still queued in the socket: after each quiet interval, one more poll phase of
   * the event loop (setImmediate runs right after it) must bring no new datagram. Bounded, so
   * a server that keeps sending cannot hold the shutdown open.
   */
  async function drainSocket(until: number): Promise<void> {
    for (;;) {
      const seen = received;
      await sleep(DRAIN_QUIET_MS);
      await new Promise((resolve) => setImmediate(resolve));
      if (received === seen || Date.now() >= until) return;
    }
  }
  return {
    port: socket.address().port,
    recvBufferBytes: socket.getRecvBufferSize(),
    stats,
    delivery,
    flush: async () => {
      await queue;
      await flush();
    },
    close: async () => {
      const deadline = Date.now() + closeTimeoutMs;
      await drainSocket(Math.min(deadline, Date.now() + 1000));
      await new Promise<void>((resolve) => socket.close(() => resolve()));
      await queue;
      await flush();
      while (delivery.pending > 0 && Date.now() < deadline) {
        await sleep(Math.min(retryMs || RETRY_MIN_MS, Math.max(0, deadline - Date.now())));
        await flush();
      }
      clearTimeout(timer);
      timer = undefined;
      if (delivery.pending > 0) {
        delivery.dropped += delivery.pending;
        options.onError?.(new Error(`UDP log receiver closed with ${delivery.pending} lines not applied`));
      }
    },
  };
}
