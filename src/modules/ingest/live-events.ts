import type { Transaction } from 'kysely';
import type { Database } from '../../db/types.js';
import { serverCommandsRepo } from '../servers/commands/repo.js';
import type { NewEvent } from '../events/outbox.js';
import { happeningEvents } from './batch-events.js';
import type { Happening } from './match-state.js';
import { knownUsers } from './repo.js';

/**
 * The events a batch tells as its lines are read (round and match boundaries, provisional kills,
 * chat), with the two lookups they need: the hub profiles of the players they name (none is
 * created here: a provisional kill or a chat line is not a counted appearance) and, when the batch
 * holds chat, who may read the server's chat. `live` (provisional kills, voided rounds, chat) is
 * written first in the batch, in log order, so a provisional kill precedes its `kill.recorded` when
 * one batch brings both; `boundaries` (rounds, matches) follow the settled kills as before.
 */
export async function tellHappenings(
  trx: Transaction<Database>,
  server: { id: number; game: string },
  happenings: readonly Happening[],
): Promise<{ live: NewEvent[]; boundaries: NewEvent[] }> {
  if (happenings.length === 0) return { live: [], boundaries: [] };
  const steamIds: string[] = [];
  let chat = false;
  for (const h of happenings) {
    if (h.kind === 'kill_seen') steamIds.push(h.killer.steamId, h.victim.steamId);
    if (h.kind === 'chat') {
      chat = true;
      if (h.player.steamId !== null) steamIds.push(h.player.steamId);
    }
  }
  const users = steamIds.length > 0 ? await knownUsers(trx, steamIds) : new Map<string, number>();
  const chatReaders = chat ? await serverCommandsRepo(trx).ownerAndOperators(server.id) : [];
  const lookups = { users, chatReaders };
  const isLive = (h: Happening) => h.kind === 'kill_seen' || h.kind === 'chat' || h.kind === 'round_voided';
  return {
    live: happeningEvents(server, happenings.filter(isLive), lookups),
    boundaries: happeningEvents(
      server,
      happenings.filter((h) => !isLive(h)),
      lookups,
    ),
  };
}
