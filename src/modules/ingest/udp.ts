import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import type { IngestRecorder } from '../../http/metrics.js';
import { parseLogPacket } from './parsers/goldsrc-log.js';
import { parseLogLine, type LogEvent } from './parsers/log-line.js';
import type { IngestPipeline } from './pipeline.js';
import type { IngestServer, ServersRepo } from '../servers/repo.js';
import { hashToken, TOKEN_PATTERN } from '../servers/tokens.js';

/**
 * UDP log receiver for `logaddress_add` (CS 1.6 and other GoldSrc/Source servers). A datagram is
 * accepted only when it carries a registered server's token as its log secret (`sv_logsecret`)
 * AND comes from that server's registered IP: UDP source addresses can be spoofed, the secret
 * alone could leak from a config file, so both are required. Lines are buffered per server and
 * applied in batches (one transaction each) every `flushMs`, in arrival order.
 */
export interface UdpIngestOptions {
  port: number;
  host?: string;
  flushMs?: number;
  /** how long a token/address check is remembered; revocation applies within this time */
  authCacheMs?: number;
  onError?: (err: unknown) => void;
  metrics?: IngestRecorder;
}

export interface UdpIngest {
  port: number;
  stats: { accepted: number; rejected: number; unauthorized: number };
  /** applies everything buffered so far */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const MAX_BUFFER = 5000;
const unmap = (address: string) => (address.startsWith('::ffff:') ? address.slice(7) : address);

export async function startUdpIngest(
  servers: ServersRepo,
  pipeline: IngestPipeline,
  options: UdpIngestOptions,
): Promise<UdpIngest> {
  const flushMs = options.flushMs ?? 250;
  const authCacheMs = options.authCacheMs ?? 5000;
  const auth = new Map<string, { server: IngestServer | null; until: number }>();
  const buffers = new Map<number, { server: IngestServer; events: LogEvent[] }>();
  const stats = { accepted: 0, rejected: 0, unauthorized: 0 };
  let timer: NodeJS.Timeout | undefined;
  let queue: Promise<void> = Promise.resolve();
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
    if (!parsed.ok) {
      stats.rejected++;
      options.metrics?.received('udp', 0, 1);
      return;
    }
    stats.accepted++;
    options.metrics?.received('udp', 1, 0);
    let buffer = buffers.get(server.id);
    if (!buffer) buffers.set(server.id, (buffer = { server, events: [] }));
    buffer.events.push(parsed.event);
    if (buffer.events.length >= MAX_BUFFER) void flush();
    else timer ??= setTimeout(() => void flush(), flushMs);
  }

  function flush(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    const batches = [...buffers.values()];
    buffers.clear();
    flushing = flushing.then(async () => {
      for (const { server, events } of batches) {
        try {
          const applied = await pipeline.ingestLogEvents(server, events);
          options.metrics?.kills('udp', applied.kills);
        } catch (err) {
          options.onError?.(err);
        }
      }
    });
    return flushing;
  }

  const socket: Socket = createSocket({ type: options.host?.includes(':') ? 'udp6' : 'udp4' });
  socket.on('message', (msg, rinfo) => {
    queue = queue.then(() => handle(msg, rinfo)).catch((err: unknown) => options.onError?.(err));
  });
  socket.on('error', (err) => options.onError?.(err));
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(options.port, options.host ?? '0.0.0.0', () => {
      socket.off('error', reject);
      resolve();
    });
  });
  return {
    port: socket.address().port,
    stats,
    flush: async () => {
      await queue;
      await flush();
    },
    close: async () => {
      await new Promise<void>((resolve) => socket.close(() => resolve()));
      await queue;
      await flush();
    },
  };
}
