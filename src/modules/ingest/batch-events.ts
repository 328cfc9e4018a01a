import type { EloChange } from '../../engines/elo.js';
import type { Reward } from '../../engines/ledger.js';
import { toIso } from '../../http/schemas.js';
import { eventOf } from '../events/define.js';
import type { NewEvent } from '../events/outbox.js';
import { REWARD_MINTED } from '../economy/events.js';
import {
  ACHIEVEMENT_UNLOCKED,
  CHAT_MESSAGE,
  ELO_CHANGED,
  KILL_PROVISIONAL,
  KILL_RECORDED,
  KILLS_BATCH_RECORDED,
  MATCH_ABANDONED,
  MATCH_ENDED,
  MATCH_STARTED,
  PLAYER_LEVEL_UP,
  PLAYER_REGISTERED,
  PLAYER_XP_GAINED,
  ROUND_ENDED,
  ROUND_STARTED,
  ROUND_VOIDED,
  TOURNAMENT_MATCH_REPORTED,
  TOURNAMENT_PLAYER_JOINED,
} from './events.js';
import type { Happening } from './match-state.js';
import type { NewKill } from './repo.js';

/**
 * The events one ingest batch tells, built from what the batch wrote (pipeline.ts collects them and
 * writes them with one multi-row insert at the end of the batch's transaction).
 */

type Game = (typeof KILL_RECORDED.example)['game'];
interface Server {
  id: number;
  game: string;
}

/** The batched variant carries at most this many kills; a larger batch is told in several. */
export const KILLS_PER_BATCH_EVENT = 500;

const gameOf = (server: Server): Game => server.game as Game;

export function killEvents(server: Server, kills: readonly NewKill[]): NewEvent[] {
  const data = kills.map((k) => ({
    server_id: server.id,
    game: gameOf(server),
    killer_user_id: k.killer_user_id,
    killer_steam_id: k.killer_steam_id,
    victim_user_id: k.victim_user_id,
    victim_steam_id: k.victim_steam_id,
    weapon: k.weapon,
    headshot: k.headshot === 1,
    round: k.round_number,
    occurred_at: toIso(k.occurred_at),
  }));
  const events = data.map((kill) => eventOf(KILL_RECORDED, kill));
  for (let i = 0; i < data.length; i += KILLS_PER_BATCH_EVENT) {
    const part = data.slice(i, i + KILLS_PER_BATCH_EVENT);
    events.push(
      eventOf(KILLS_BATCH_RECORDED, {
        server_id: server.id,
        game: gameOf(server),
        count: part.length,
        kills: part,
      }),
    );
  }
  return events;
}

/** Who the happenings name, looked up once per batch (live-events.ts). */
export interface HappeningLookups {
  /** SteamID64 -> hub user id, for the players that have a profile */
  users: ReadonlyMap<string, number>;
  /** the server's owner and operators: each gets their own copy of its chat */
  chatReaders: readonly number[];
}

export function happeningEvents(
  server: Server,
  happenings: readonly Happening[],
  lookups: HappeningLookups,
): NewEvent[] {
  const ref = { server_id: server.id, game: gameOf(server) };
  const userOf = (steamId: string | null) => (steamId === null ? null : (lookups.users.get(steamId) ?? null));
  return happenings.flatMap((h): NewEvent[] => {
    switch (h.kind) {
      case 'round_started':
        return [eventOf(ROUND_STARTED, { ...ref, map: h.map, round: h.round })];
      case 'round_ended':
        return [eventOf(ROUND_ENDED, { ...ref, map: h.map, round: h.round, kills: h.kills })];
      case 'round_voided':
        return [eventOf(ROUND_VOIDED, { ...ref, map: h.map, round: h.round, kills: h.kills })];
      case 'match_started':
        return [eventOf(MATCH_STARTED, { ...ref, map: h.map })];
      case 'match_abandoned':
        return [eventOf(MATCH_ABANDONED, { ...ref, map: h.map, rounds: h.rounds })];
      case 'kill_seen':
        return [
          eventOf(KILL_PROVISIONAL, {
            ...ref,
            killer_user_id: userOf(h.killer.steamId),
            killer_steam_id: h.killer.steamId,
            killer_name: h.killer.name.slice(0, 64),
            victim_user_id: userOf(h.victim.steamId),
            victim_steam_id: h.victim.steamId,
            victim_name: h.victim.name.slice(0, 64),
            weapon: h.weapon.slice(0, 32),
            headshot: h.headshot,
            round: h.round,
            occurred_at: toIso(h.at),
          }),
        ];
      case 'chat': {
        const data = {
          ...ref,
          steam_id: h.player.steamId,
          user_id: h.player.userId !== undefined ? h.player.userId : userOf(h.player.steamId),
          name: h.player.name.slice(0, 64),
          team: h.player.team.slice(0, 32),
          channel: h.channel,
          text: h.text,
          occurred_at: toIso(h.at),
        };
        return lookups.chatReaders.map((userId) => eventOf(CHAT_MESSAGE, data, { userId }));
      }
    }
  });
}

export interface EndedMatch {
  matchId: number;
  map: string;
  team1Score: number;
  team2Score: number;
  winner: number;
  team1: number[];
  team2: number[];
  endedAt: number;
  tournamentId?: number;
  /** players for whom this was their first match of the tournament */
  joined: number[];
  elo: EloChange[];
}

export function matchEvents(server: Server, m: EndedMatch): NewEvent[] {
  const events = [
    eventOf(MATCH_ENDED, {
      match_id: m.matchId,
      server_id: server.id,
      game: gameOf(server),
      map: m.map,
      team1_score: m.team1Score,
      team2_score: m.team2Score,
      winner: m.winner,
      team1: m.team1,
      team2: m.team2,
      ended_at: toIso(m.endedAt),
    }),
    ...m.elo.map((c) =>
      eventOf(ELO_CHANGED, {
        user_id: c.userId,
        game: gameOf(server),
        match_id: m.matchId,
        rating_before: Math.round(c.before),
        rating: Math.round(c.after),
        won: c.won,
      }),
    ),
  ];
  if (m.tournamentId !== undefined) {
    const tournament_id = m.tournamentId;
    events.push(
      eventOf(TOURNAMENT_MATCH_REPORTED, {
        tournament_id,
        match_id: m.matchId,
        team1_score: m.team1Score,
        team2_score: m.team2Score,
      }),
      ...m.joined.map((user_id) => eventOf(TOURNAMENT_PLAYER_JOINED, { tournament_id, user_id })),
    );
  }
  return events;
}

export function registeredEvents(
  server: Server,
  created: ReadonlyMap<number, { steamId: string; name: string }>,
): NewEvent[] {
  return [...created].map(([user_id, p]) =>
    eventOf(PLAYER_REGISTERED, {
      user_id,
      steam_id: p.steamId,
      name: p.name.slice(0, 64),
      server_id: server.id,
      game: gameOf(server),
    }),
  );
}

export interface ProgressTold {
  userId: number;
  totalXp: number;
  level: number;
  levelBefore: number;
  xp: { reason: string; amount: number }[];
  unlocked: { id: number; code: string }[];
}

export function progressEvents(writes: readonly ProgressTold[]): NewEvent[] {
  return writes.flatMap((w) => {
    const amount = w.xp.reduce((sum, x) => sum + x.amount, 0);
    const events: NewEvent[] = [];
    if (amount > 0)
      events.push(
        eventOf(PLAYER_XP_GAINED, { user_id: w.userId, amount, total_xp: w.totalXp, reasons: w.xp }),
      );
    if (w.level > w.levelBefore)
      events.push(
        eventOf(PLAYER_LEVEL_UP, {
          user_id: w.userId,
          level_before: w.levelBefore,
          level: w.level,
          total_xp: w.totalXp,
        }),
      );
    for (const a of w.unlocked)
      events.push(eventOf(ACHIEVEMENT_UNLOCKED, { user_id: w.userId, achievement_id: a.id, code: a.code }));
    return events;
  });
}

/** Coins minted by rules: private to the user who earned them. */
export const rewardEvents = (rewards: readonly Reward[]): NewEvent[] =>
  rewards.map((r) =>
    eventOf(REWARD_MINTED, { user_id: r.userId, amount: r.amount, reason: r.reason }, { userId: r.userId }),
  );
