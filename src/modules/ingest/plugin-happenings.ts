import type { Transaction } from 'kysely';
import type { Database } from '../../db/types.js';
import { linkedUsers } from '../identities/repo.js';
import { isSteamKey } from '../identities/player.js';
import type { Happening, KillRecord } from './match-state.js';
import { knownUsers, serverMap, setServerMap } from './repo.js';

/**
 * What a plugin's JSON events tell beyond kills and matches (docs/game-servers.md): chat, round
 * boundaries and map changes, in the order of the batch. They become the happenings the log path
 * tells (live-events.ts), so a plugin's chat is the same private `chat.message` as a log line's.
 */
export type PluginHappening =
  | {
      kind: 'chat';
      /** key: a SteamID64, or `minecraft:…` / `eos:…` (identities/player.ts) */
      player: { key: string; name: string };
      text: string;
      channel: 'all' | 'team';
      at: number;
    }
  | { kind: 'round'; action: 'start' | 'end'; round: number }
  | { kind: 'map_change'; map: string };

/**
 * The happenings of a batch's plugin events, with the server's map as it stands at each one (a
 * `map_change` moves it, and the server's stored map is updated once, to the last). A round's end
 * tells the kills with its `round_number` that this same batch counted; a chat names the hub user
 * behind the sender (by Steam profile or identity link), or nobody.
 */
export async function pluginHappenings(
  trx: Transaction<Database>,
  serverId: number,
  plugin: readonly PluginHappening[],
  kills: readonly KillRecord[],
): Promise<Happening[]> {
  if (plugin.length === 0) return [];
  let map = await serverMap(trx, serverId);
  const startMap = map;
  const chatKeys = plugin.flatMap((p) => (p.kind === 'chat' ? [p.player.key] : []));
  const steam = chatKeys.filter(isSteamKey);
  const users = new Map([
    ...(steam.length ? await knownUsers(trx, steam) : []),
    ...(chatKeys.length > steam.length
      ? await linkedUsers(
          trx,
          chatKeys.filter((k) => !isSteamKey(k)),
        )
      : []),
  ]);
  const out: Happening[] = [];
  for (const p of plugin) {
    switch (p.kind) {
      case 'map_change':
        map = p.map;
        break;
      case 'round':
        out.push(
          p.action === 'start'
            ? { kind: 'round_started', map, round: p.round }
            : {
                kind: 'round_ended',
                map,
                round: p.round,
                kills: kills.filter((k) => k.round === p.round).length,
              },
        );
        break;
      case 'chat':
        out.push({
          kind: 'chat',
          player: {
            steamId: isSteamKey(p.player.key) ? p.player.key : null,
            name: p.player.name,
            team: '',
            userId: users.get(p.player.key) ?? null,
          },
          channel: p.channel,
          text: p.text,
          at: p.at,
        });
        break;
    }
  }
  if (map !== startMap) await setServerMap(trx, serverId, map);
  return out;
}
