import { isIP } from 'node:net';
import type { Db } from '../db/connect.js';
import { GAMES } from '../http/schemas.js';
import { REGIONS } from '../modules/servers/regions.js';
import { serverCommandsRepo } from '../modules/servers/commands/repo.js';
import { serversRepo } from '../modules/servers/repo.js';
import { generateToken, hashToken } from '../modules/servers/tokens.js';
import { intOption, iso, oneOf, parse, UsageError } from './args.js';
import { CHANNELS, PLUGIN_USAGE, serverPluginCommand } from './server-plugin.js';
import { ownerOption, RCON_USAGE, sealedPassword, serverRconCommand, type KeySource } from './server-rcon.js';

export const SERVERS_USAGE = `hub servers add --name TEXT --game cs2|cs16|rust|minecraft --ip IP --port N [--query-port N] [--region REGION]
                 [--owner USER_ID --rcon-password PW [--rcon-port N]] [--channel rcon|plugin] [--json]
hub servers update ID --region REGION
hub servers list [--json]
hub servers remove ID
${RCON_USAGE}
${PLUGIN_USAGE}
REGION is one of: ${REGIONS.join(', ')}`;

export const SERVERS_HELP = `${SERVERS_USAGE}

The owner (a hub user id) and the users granted with \`grant\` may send remote-console commands to
the server through an app they authorized (POST /v1/servers/ID/command, scope servers:command).
The RCON password is stored encrypted (AES-256-GCM) under HUB_SECRET_KEY; on SQLite without it,
a key is generated once and kept in the data folder (secret-key). --rcon-port defaults to the game port.
With --channel plugin, commands go to a queue the server's plugin long-polls instead (no RCON needed;
docs/server-commands.md); a plugin's heartbeats keep a server online even with no reachable query port.`;

export const isHelp = (arg: string | undefined) => arg === 'help' || arg === '--help' || arg === '-h';

export async function serversCommand(
  db: Db,
  argv: string[],
  key: KeySource = () => undefined,
): Promise<void> {
  const [sub, ...rest] = argv;
  const repo = serversRepo(db.kysely);
  switch (sub ?? '') {
    case 'set-rcon':
    case 'grant':
    case 'revoke':
      return serverRconCommand(db, sub ?? '', rest, key);
    case 'set-channel':
    case 'rotate-token':
      return serverPluginCommand(db, sub ?? '', rest);
    case 'add': {
      const { values } = parse(rest, {
        name: { type: 'string' },
        game: { type: 'string' },
        ip: { type: 'string' },
        port: { type: 'string' },
        'query-port': { type: 'string' },
        region: { type: 'string' },
        owner: { type: 'string' },
        'rcon-password': { type: 'string' },
        'rcon-port': { type: 'string' },
        channel: { type: 'string' },
        json: { type: 'boolean' },
      });
      const channel = oneOf(values.channel, 'channel', CHANNELS) ?? 'rcon';
      const game = oneOf(values.game, 'game', GAMES);
      const region = oneOf(values.region, 'region', REGIONS) ?? 'unassigned';
      const port = intOption(values.port, 'port', 1, 65535);
      const queryPort = intOption(values['query-port'], 'query-port', 1, 65535);
      const name = values.name?.trim();
      if (!name || !game || !values.ip || port === undefined)
        throw new UsageError(`--name, --game, --ip and --port are required\n${SERVERS_USAGE}`);
      if (name.length > 120) throw new UsageError('--name must be at most 120 characters');
      if (!isIP(values.ip)) throw new UsageError(`--ip must be an IPv4 or IPv6 address (got ${values.ip})`);
      const rconPort = intOption(values['rcon-port'], 'rcon-port', 1, 65535);
      const password = values['rcon-password'];
      if (rconPort !== undefined && password === undefined)
        throw new UsageError('--rcon-port needs --rcon-password');
      const owner = await ownerOption(db, values.owner);
      const rcon = password === undefined ? undefined : sealedPassword(password, key);
      const token = generateToken();
      const record = await repo.add({
        name,
        game,
        ip: values.ip,
        port,
        query_port: queryPort ?? null,
        token_hash: hashToken(token),
        created_at: Date.now(),
        region,
        owner_user_id: owner ?? null,
        rcon_port: rconPort ?? null,
        rcon_password: rcon ?? null,
        command_channel: channel,
      });
      if (values.json) {
        console.log(
          JSON.stringify({
            id: record.id,
            token,
            name,
            game,
            ip: record.ip,
            port,
            query_port: queryPort ?? null,
            region,
            owner_user_id: owner ?? null,
            rcon: rcon !== undefined,
            rcon_port: rconPort ?? null,
            channel,
          }),
        );
      } else {
        console.log(
          `Registered server ${record.id} (${game}, ${record.ip}:${port}, ${region}${owner === undefined ? '' : `, owner user ${owner}`}${rcon === undefined ? '' : `, RCON on port ${rconPort ?? port}`}${channel === 'plugin' ? ', commands through its plugin' : ''}). Ingest token: ${token}`,
        );
        console.log('Store it now: it is shown only once. To connect the server, see docs/game-servers.md.');
      }
      return;
    }
    case 'list': {
      const { values } = parse(rest, { json: { type: 'boolean' } });
      const withRcon = new Set((await serverCommandsRepo(db.kysely).sealedPasswords()).map((r) => r.id));
      const rows = (await repo.list()).map((s) => ({
        id: s.id,
        name: s.name,
        game: s.game,
        address: `${s.ip}:${s.port}`,
        query_port: s.query_port,
        region: s.region,
        owner_user_id: s.owner_user_id,
        rcon: withRcon.has(s.id) ? `port ${s.rcon_port ?? s.port}` : 'off',
        channel: s.command_channel,
        status: s.status,
        players: `${s.players}/${s.max_players}`,
        map: s.map,
        created_at: iso(s.created_at),
      }));
      if (values.json) console.log(JSON.stringify(rows));
      else if (rows.length === 0) console.log('No servers.');
      else console.table(rows);
      return;
    }
    case 'update': {
      const { values, positionals } = parse(rest, { region: { type: 'string' } });
      const id = intOption(positionals[0], 'id', 1, 2147483647);
      const region = oneOf(values.region, 'region', REGIONS);
      if (id === undefined || region === undefined)
        throw new UsageError('usage: hub servers update ID --region REGION');
      if (!(await repo.setRegion(id, region))) throw new UsageError(`no registered server with id ${id}`);
      console.log(`Server ${id} is now in region ${region}.`);
      return;
    }
    case 'remove': {
      const { positionals } = parse(rest, {});
      const id = intOption(positionals[0], 'id', 1, 2147483647);
      if (id === undefined) throw new UsageError('usage: hub servers remove ID');
      if (!(await repo.remove(id, Date.now()))) throw new UsageError(`no registered server with id ${id}`);
      console.log(`Removed server ${id}; its ingest token no longer works.`);
      return;
    }
    default:
      throw new UsageError(SERVERS_USAGE);
  }
}
