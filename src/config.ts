import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';

/**
 * Every environment variable the service reads. The type of `Config` is inferred from this schema,
 * so adding a variable here is the only step needed to make it available (and documented).
 */
export const ConfigSchema = Type.Object({
  PORT: Type.Integer({ minimum: 0, maximum: 65535, default: 3000, description: 'HTTP port' }),
  HOST: Type.String({ default: '127.0.0.1', description: 'HTTP bind address' }),
  DATABASE_URL: Type.String({
    default: 'sqlite:./data/hub.sqlite',
    pattern: '^(sqlite:|postgres://|postgresql://)',
    description: 'sqlite:<path> (embedded default) or postgres://user@host:port/db',
  }),
  REDIS_URL: Type.Optional(
    Type.String({ pattern: '^rediss?://', description: 'redis://host:port; enables the shared stores' }),
  ),
  REDIS_PREFIX: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9:_.-]{1,64}$',
      description:
        'prefix of every Redis key this deployment writes (default `hub:<deployment id>:`, unique per database)',
    }),
  ),
  REDIS_COMMAND_TIMEOUT_MS: Type.Integer({
    minimum: 5,
    maximum: 10000,
    default: 250,
    description:
      'how long a Redis reply may take before it counts as a timeout; Redis counts as unreachable only after 10 timeouts in a row with no reply (or a lost connection)',
  }),
  RATE_LIMIT_STORE_FAILURE: Type.Union([Type.Literal('open'), Type.Literal('closed')], {
    default: 'open',
    description:
      'with Redis unreachable: `open` counts quotas and throttles per instance, `closed` answers 503',
  }),
  LOG_LEVEL: Type.Union(
    [
      Type.Literal('fatal'),
      Type.Literal('error'),
      Type.Literal('warn'),
      Type.Literal('info'),
      Type.Literal('debug'),
      Type.Literal('trace'),
      Type.Literal('silent'),
    ],
    { default: 'info', description: 'log level' },
  ),
  PUBLIC_BASE_URL: Type.Optional(
    Type.String({
      pattern: '^https?://',
      description: 'externally visible base URL, used in docs and links',
    }),
  ),
  CACHE_TTL_MS: Type.Integer({
    minimum: 0,
    maximum: 60000,
    default: 500,
    description: 'how long a public read response may be served from the response cache (0 disables)',
  }),
  KEY_CACHE_MS: Type.Integer({
    minimum: 0,
    maximum: 60000,
    default: 0,
    description:
      'PostgreSQL: how long each instance remembers an API key it looked up (0: looked up on every request); a revocation or plan change made elsewhere applies within this time',
  }),
  TRUST_PROXY: Type.Boolean({ default: false, description: 'trust X-Forwarded-* headers from a proxy' }),
  REQUEST_HEADERS_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 600000,
    default: 10000,
    description: 'a request line and headers not received within this time get 408 and the connection closes',
  }),
  REQUEST_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 3600000,
    default: 30000,
    description:
      'a whole request (body included) not received within this time gets 408 and the connection closes',
  }),
  INGEST_UDP_PORT: Type.Integer({
    minimum: 0,
    maximum: 65535,
    default: 27500,
    description: 'UDP port for `logaddress_add` log streams (CS 1.6); 0 disables the UDP receiver',
  }),
  INGEST_UDP_HOST: Type.String({ default: '0.0.0.0', description: 'bind address of the UDP log receiver' }),
  INGEST_UDP_RECV_BUFFER: Type.Integer({
    minimum: 0,
    maximum: 268435456,
    default: 4194304,
    description:
      'socket receive buffer (bytes) the UDP log receiver asks for, so bursts are not dropped by the kernel; the OS may grant less (Linux: net.core.rmem_max); 0 keeps the OS default',
  }),
  INGEST_MAX_AGE_DAYS: Type.Integer({
    minimum: 1,
    maximum: 3650,
    default: 7,
    description:
      'log lines and events dated earlier than this many days ago are refused; applied log lines are remembered this long to recognise a resent batch',
  }),
  POLL_INTERVAL_MS: Type.Integer({
    minimum: 1000,
    maximum: 3600000,
    default: 15000,
    description: 'how often the poller queries every registered game server (A2S / Server List Ping)',
  }),
  POLL_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 30000,
    default: 2000,
    description: 'per-query timeout',
  }),
  POLL_OFFLINE_AFTER: Type.Integer({
    minimum: 1,
    maximum: 100,
    default: 3,
    description: 'consecutive failed queries before a server is shown offline',
  }),
  SHUTDOWN_GRACE_MS: Type.Integer({
    minimum: 0,
    maximum: 600000,
    default: 10000,
    description:
      'on SIGTERM/SIGINT, how long requests in flight may take to finish before their connections are closed',
  }),
  EVENTS_STREAM_POLL_MS: Type.Integer({
    minimum: 50,
    maximum: 60000,
    default: 1000,
    description:
      'how often each API instance reads the outbox for its event streams without a wake-up (Redis pub/sub or this process)',
  }),
  EVENTS_STREAM_HEARTBEAT_MS: Type.Integer({
    minimum: 100,
    maximum: 300000,
    default: 15000,
    description: 'a comment line on every event stream this often',
  }),
  EVENTS_STREAM_MAX_BUFFER_BYTES: Type.Integer({
    minimum: 1024,
    maximum: 67108864,
    default: 1048576,
    description: 'bytes a stream client may leave unread before its stream is closed (it resumes)',
  }),
  WORKER_METRICS_PORT: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 65535,
      description:
        '`hub worker` serves its own `/health`, `/ready` and `/metrics` (poller, UDP ingest, webhook delivery) on this port, bound to HOST; unset: none (`hub serve` reports its embedded worker on its own `/metrics`)',
    }),
  ),
  METRICS_TOKEN: Type.Optional(
    Type.String({
      minLength: 16,
      description: 'when set, `/metrics` answers only to `Authorization: Bearer <METRICS_TOKEN>`',
    }),
  ),
  RCON_TIMEOUT_MS: Type.Integer({
    minimum: 100,
    maximum: 60000,
    default: 5000,
    description:
      'how long a remote-console command (connect, log in, run, answer) may take before it is answered 504',
  }),
  PLUGIN_COMMAND_TTL: Type.Integer({
    minimum: 1,
    maximum: 86400,
    default: 60,
    description:
      'seconds a command queued for a plugin-channel server waits for the plugin\u2019s result before it is `expired` (an offline server\u2019s commands expire after it)',
  }),
  HUB_SECRET_KEY: Type.Optional(
    Type.String({
      pattern: '^([0-9a-fA-F]{64}|[A-Za-z0-9+/]{43}=|[A-Za-z0-9_-]{43})$',
      description:
        '32 random bytes as 64 hex digits or 44 base64 characters (`openssl rand -base64 32`): seals RCON passwords at rest (AES-256-GCM). On SQLite without it, one is generated and kept in the data folder (`secret-key`); on PostgreSQL it must be given for server commands',
    }),
  ),
  WEBHOOKS_ALLOW_PRIVATE_TARGETS: Type.Boolean({
    default: false,
    description:
      'let webhooks use plain http and reach private, loopback, link-local and metadata addresses, at registration and at delivery (local tests and private deployments only; refused by default against SSRF)',
  }),
  WEBHOOK_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 4096,
    default: 128,
    description: 'webhook deliveries a worker sends at once',
  }),
  WEBHOOK_ENDPOINT_CONCURRENCY: Type.Integer({
    minimum: 1,
    maximum: 1024,
    default: 8,
    description:
      'webhook deliveries a worker sends at once to one endpoint, so a slow receiver cannot hold up the others',
  }),
  DEMO_SERVER: Type.Union([Type.Literal('on'), Type.Literal('off')], {
    default: 'on',
    description:
      '`hub serve --demo` (npm start) also runs a demo CS2 server posting matches to the ingest route; `off` turns it off (as `--no-demo-server` does)',
  }),
  WORKER_IN_SERVE: Type.Boolean({
    default: true,
    description:
      'on SQLite, `hub serve` also runs the poller and UDP receiver (set false to run `hub worker` apart)',
  }),
});

export type Config = Static<typeof ConfigSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** What a variable accepts, in words: "an integer from 0 to 65535", "one of: open, closed". */
function allowed(name: string): string {
  const schema = (ConfigSchema.properties as unknown as Record<string, Record<string, unknown> | undefined>)[
    name
  ];
  if (!schema) return 'valid';
  if (Array.isArray(schema.anyOf))
    return `one of: ${(schema.anyOf as { const?: unknown }[]).map((s) => String(s.const)).join(', ')}`;
  if (schema.type === 'integer')
    return `an integer from ${String(schema.minimum)} to ${String(schema.maximum)}`;
  if (schema.type === 'boolean') return 'true or false';
  if (typeof schema.minLength === 'number') return `at least ${schema.minLength} characters`;
  return typeof schema.description === 'string' ? `like ${schema.description}` : 'valid';
}

/** A value as it may be shown back: never a token, never the password of a URL. */
function shown(name: string, value: unknown): string {
  if (name.endsWith('_TOKEN') || name.endsWith('_KEY')) return 'a value that is not shown';
  return JSON.stringify(typeof value === 'string' ? value.replace(/\/\/[^@/]*@/, '//***@') : value);
}

/** Reads and validates the environment; throws a ConfigError naming every bad variable on one line. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const raw: Record<string, unknown> = {};
  for (const key of Object.keys(ConfigSchema.properties)) {
    const value = env[key];
    if (value !== undefined && value !== '') raw[key] = value;
  }
  const converted = Value.Convert(ConfigSchema, Value.Default(ConfigSchema, raw));
  if (Value.Check(ConfigSchema, converted)) {
    if (converted.REQUEST_HEADERS_TIMEOUT_MS > converted.REQUEST_TIMEOUT_MS) {
      throw new ConfigError(
        'invalid configuration: REQUEST_HEADERS_TIMEOUT_MS must not be longer than REQUEST_TIMEOUT_MS',
      );
    }
    return converted;
  }
  const names = new Set([...Value.Errors(ConfigSchema, converted)].map((e) => e.instancePath.slice(1)));
  const problems = [...names].map((name) =>
    name
      ? `${name} must be ${allowed(name)} (got ${shown(name, raw[name])})`
      : 'the environment is not valid',
  );
  throw new ConfigError(`invalid configuration: ${problems.join('; ')}`);
}
