import type { Db } from '../db/connect.js';
import type { CommandChannel } from '../db/types.js';
import { serverCommandsRepo } from '../modules/servers/commands/repo.js';
import { DEFAULT_TOKEN_OVERLAP_MS } from '../modules/servers/heartbeat.js';
import { serversRepo } from '../modules/servers/repo.js';
import { generateToken, hashToken } from '../modules/servers/tokens.js';
import { intOption, iso, oneOf, parse, UsageError } from './args.js';
import { ownerOption } from './server-rcon.js';

export const CHANNELS = ['rcon', 'plugin'] as const satisfies readonly CommandChannel[];

export const PLUGIN_USAGE = `hub servers set-channel ID rcon|plugin [--owner USER_ID]   how /v1 commands reach the server
hub servers rotate-token ID [--overlap 24h] [--json]   a new ingest token; the old one works for the overlap`;

const UNITS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
/** Longest overlap: a week is enough to roll a token out to every sender of a server. */
const MAX_OVERLAP_MS = 7 * UNITS.d;

/** `--overlap`: a whole number of s, m, h or d (0: the old token stops at once), at most 7 days. */
export function overlapOption(value: string | undefined): number {
  if (value === undefined) return DEFAULT_TOKEN_OVERLAP_MS;
  const match = /^(\d{1,6})([smhd])$|^0$/.exec(value);
  const ms =
    match === null
      ? NaN
      : match[1] === undefined
        ? 0
        : Number(match[1]) * UNITS[match[2] as keyof typeof UNITS];
  if (!(ms >= 0 && ms <= MAX_OVERLAP_MS))
    throw new UsageError(
      `--overlap must be a duration such as 30m, 24h or 7d (at most 7d; 0 ends the old token at once), got ${value}`,
    );
  return ms;
}

const serverId = (value: string | undefined, usage: string): number => {
  const id = intOption(value, 'id', 1, 2147483647);
  if (id === undefined) throw new UsageError(`usage: ${usage}`);
  return id;
};

/** `hub servers set-channel | rotate-token`. */
export async function serverPluginCommand(
  db: Db,
  sub: string,
  rest: string[],
  now = Date.now,
): Promise<void> {
  if (sub === 'set-channel') {
    const usage = 'hub servers set-channel ID rcon|plugin [--owner USER_ID]';
    const { values, positionals } = parse(rest, { owner: { type: 'string' } });
    const id = serverId(positionals[0], usage);
    const channel = oneOf(positionals[1], 'channel', CHANNELS);
    if (channel === undefined) throw new UsageError(`usage: ${usage}`);
    const owner = await ownerOption(db, values.owner);
    const repo = serverCommandsRepo(db.kysely);
    if (!(await repo.setChannel(id, channel, owner)))
      throw new UsageError(`no registered server with id ${id}`);
    console.log(
      channel === 'plugin'
        ? `Server ${id} takes commands through its plugin's queue (POST /v1/servers/${id}/command); see docs/server-commands.md.`
        : `Server ${id} takes commands over its remote console (hub servers set-rcon ${id} --password …).`,
    );
    return;
  }
  const usage = 'hub servers rotate-token ID [--overlap 24h] [--json]';
  const { values, positionals } = parse(rest, { overlap: { type: 'string' }, json: { type: 'boolean' } });
  const id = serverId(positionals[0], usage);
  const overlap = overlapOption(values.overlap);
  const token = generateToken();
  const until = now() + overlap;
  if (!(await serversRepo(db.kysely).rotateToken(id, hashToken(token), until)))
    throw new UsageError(`no registered server with id ${id}`);
  if (values.json) {
    console.log(JSON.stringify({ id, token, previous_valid_until: iso(until) }));
    return;
  }
  console.log(`New ingest token of server ${id}: ${token}`);
  console.log(
    overlap === 0
      ? 'The previous token no longer works. Store the new one now: it is shown only once.'
      : `The previous token works until ${iso(until) ?? ''}; move every sender over before then. Store the new one now: it is shown only once.`,
  );
}
