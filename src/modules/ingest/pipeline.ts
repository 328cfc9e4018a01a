import type { Transaction } from 'kysely';
import type { Db } from '../../db/connect.js';
import type { Database } from '../../db/types.js';
import { writeTransaction } from '../../db/write-transaction.js';
import { COUNTERS, type Counter } from '../../engines/achievements.js';
import { rateMatch, ELO_START, type EloChange, type EloPlayer } from '../../engines/elo.js';
import { LONG_RANGE_METRES, progress, weaponClass, xpForActivity, type Activity } from '../../engines/xp.js';
import { ELO_GAMES } from '../../engines/elo.js';
import { rewardsFor } from '../../engines/ledger.js';
import { mintRewards } from '../economy/repo.js';
import { emitEvents, type NewEvent } from '../events/outbox.js';
import { addKillsToRollups, dayOf, ensureFragWindow, type RollupKill } from '../killboard/rollups.js';
import { linkedUsers } from '../identities/repo.js';
import { isSteamKey } from '../identities/player.js';
import { pluginHappenings, type PluginHappening } from './plugin-happenings.js';
import { killRow } from './kill-row.js';
import {
  killEvents,
  matchEvents,
  progressEvents,
  registeredEvents,
  rewardEvents,
  type ProgressTold,
} from './batch-events.js';
import { parseLogBatch, type LogLine } from './parsers/cs2-log.js';
import type { LogEvent } from './parsers/log-line.js';
import { numbersOutOfBounds } from './parsers/event-bounds.js';
import { lineFingerprints, type ResendUnit } from './line-dedupe.js';
import { tellHappenings } from './live-events.js';
import { outsideWindow, timeWindow, windowStart, type TimeWindow } from './time-window.js';
import {
  applyLogEvents,
  endsOnTeamScores,
  restoreState,
  type Happening,
  type KillRecord,
  type MatchRecord,
} from './match-state.js';
import {
  bumpCounters,
  claimClientIds,
  claimLines,
  forgetIngestedBefore,
  ensureAchievementCatalog,
  insertKills,
  insertMatch,
  joinTournament,
  loadStreamState,
  readElo,
  readPlayers,
  resolveUsers,
  saveStreamState,
  writeElo,
  writeProgress,
  type CounterDelta,
  type NewKill,
  type ProgressWrite,
} from './repo.js';

/**
 * The ingest pipeline. A batch (an HTTP body, or a flush of UDP lines) is applied in ONE
 * transaction: kills, rollups, per-player counters, achievements, XP and levels, matches and Elo,
 * and the log-stream state. After a crash a batch is all in or all out.
 * Work is grouped per batch, not per kill: one user lookup, multi-row inserts, counters and
 * achievements evaluated once per player. The batch's events (batch-events.ts) are written last,
 * in the same transaction, with one multi-row insert.
 */
export interface IngestServerRef {
  id: number;
  game: string;
}

export interface BatchItems {
  kills: KillRecord[];
  matches: MatchRecord[];
  /**
   * player key -> name of everyone seen: a SteamID64 gets a hub profile; a plugin's `minecraft:…` /
   * `eos:…` key (identities/player.ts) counts only for the user its identity is linked to. Kills
   * and match players carry the same keys in their `steamId`.
   */
  seen: Map<string, string>;
  /** round and match boundaries, chat, told as events */
  happenings?: Happening[];
  /** a plugin's chat, rounds and map changes (JSON events), made happenings inside the batch */
  plugin?: PluginHappening[];
}

export interface ApplyResult {
  kills: number;
  matches: number;
  unlocked: number;
}

export interface Rejection {
  line?: number;
  index?: number;
  reason: string;
}

export interface LogIngestResult extends ApplyResult {
  accepted: number;
  /** lines already applied by an earlier batch (a resend) */
  duplicates: number;
  rejected: Rejection[];
}

type Trx = Transaction<Database>;
interface Prepared {
  catalogIds: Map<string, number>;
  windowDay: number;
  at: number;
}
const isCounter = (name: string): name is Counter => (COUNTERS as readonly string[]).includes(name);
const isEloGame = (game: string) => (ELO_GAMES as readonly string[]).includes(game);

const PRUNE_EVERY_MS = 3_600_000;

export function ingestPipeline(db: Db, now: () => number = Date.now, window: TimeWindow = timeWindow()) {
  let prunedAt = 0;
  let catalog: Promise<Map<string, number>> | undefined;
  const achievementIds = () =>
    (catalog ??= ensureAchievementCatalog(db.kysely).catch((err: unknown) => {
      catalog = undefined;
      throw err;
    }));

  /**
   * Reads done before a batch's transaction: on SQLite the transaction holds the only connection,
   * so nothing may query outside it until it ends.
   */
  async function prepare(at: number): Promise<Prepared> {
    const [catalogIds, windowDay] = await Promise.all([
      achievementIds(),
      ensureFragWindow(db.kysely, dayOf(at)),
    ]);
    return { catalogIds, windowDay, at };
  }

  async function applyItems(
    trx: Trx,
    server: IngestServerRef,
    items: BatchItems,
    { catalogIds, windowDay, at }: Prepared,
  ): Promise<ApplyResult> {
    const players = new Map(items.seen);
    for (const k of items.kills) {
      players.set(k.killer.steamId, k.killer.name);
      players.set(k.victim.steamId, k.victim.name);
    }
    for (const m of items.matches) for (const p of [...m.team1, ...m.team2]) players.set(p.steamId, p.name);
    if (players.size === 0) {
      const { live, boundaries } = await tellHappenings(trx, server, items.happenings ?? []);
      await emitEvents(trx, db.dialect, [...live, ...boundaries], at);
      return { kills: 0, matches: 0, unlocked: 0 };
    }
    const created = new Map<number, { steamId: string; name: string }>();
    const ids = await resolveUsers(
      trx,
      new Map([...players].filter(([key]) => isSteamKey(key))),
      at,
      created,
    );
    const others = [...players.keys()].filter((key) => !isSteamKey(key));
    if (others.length > 0) for (const [key, id] of await linkedUsers(trx, others)) ids.set(key, id);
    // after the profiles this batch creates, so the kills it tells name them
    const { live, boundaries } = await tellHappenings(trx, server, items.happenings ?? []);
    /** the hub user of a player key; undefined only for an unlinked non-Steam identity */
    const userOf = (key: string): number | undefined => ids.get(key);

    const sums = new Map<string, CounterDelta>();
    const maxes = new Map<string, CounterDelta>();
    const activity = new Map<number, Activity>();
    const add = (user_id: number, counter: Counter, value: number) => {
      const key = `${user_id}|${counter}`;
      const d = sums.get(key);
      if (d) d.value += value;
      else sums.set(key, { user_id, counter, value });
    };
    const raise = (user_id: number, counter: Counter, value: number) => {
      const d = maxes.get(`${user_id}|${counter}`);
      if (d) d.value = Math.max(d.value, value);
      else maxes.set(`${user_id}|${counter}`, { user_id, counter, value });
    };
    const act = (userId: number, what: keyof Activity, n = 1) => {
      let a = activity.get(userId);
      if (!a) activity.set(userId, (a = {}));
      a[what] = (a[what] ?? 0) + n;
    };

    const gameCounter = `${server.game}_kills`;
    const kills: NewKill[] = [];
    // A kill naming a non-Steam identity counts for whoever of the two is linked, but is not a
    // row of the kill feed, whose participants are named by SteamID (docs/game-servers.md).
    const credited: RollupKill[] = [];
    for (const k of items.kills) {
      const killer = userOf(k.killer.steamId);
      const victim = userOf(k.victim.steamId);
      if (killer !== undefined) credit(killer, k);
      if (
        killer !== undefined &&
        victim !== undefined &&
        isSteamKey(k.killer.steamId) &&
        isSteamKey(k.victim.steamId)
      )
        kills.push(killRow(server, k, killer, victim));
      else if (killer !== undefined || victim !== undefined)
        credited.push({
          killer_user_id: killer ?? null,
          victim_user_id: victim ?? null,
          game: server.game,
          occurred_at: k.occurredAt,
          headshot: k.headshot ? 1 : 0,
        });
    }
    function credit(killer: number, k: KillRecord): void {
      add(killer, 'kills', 1);
      act(killer, 'kill');
      if (k.headshot) {
        add(killer, 'headshots', 1);
        act(killer, 'headshot');
      }
      if (isCounter(gameCounter)) add(killer, gameCounter, 1);
      const cls = weaponClass(k.weapon);
      if (cls !== 'other') add(killer, `${cls}_kills`, 1);
      if (k.distance >= LONG_RANGE_METRES) add(killer, 'long_range_kills', 1);
      raise(killer, 'max_kills_in_round', k.roundKills);
    }
    await insertKills(trx, db, kills);
    // Rollup rows are upserted in the order kills are given: sorted by player, concurrent batches
    // lock them in one order and cannot deadlock on PostgreSQL.
    const byPlayer = [...kills, ...credited].sort(
      (a, b) => (a.killer_user_id ?? 0) - (b.killer_user_id ?? 0) || a.occurred_at - b.occurred_at,
    );
    await addKillsToRollups(trx, byPlayer, windowDay);

    const matchTold: NewEvent[] = [];
    for (const m of items.matches) matchTold.push(...(await applyMatch(trx, server, m, userOf, add, act)));

    await bumpCounters(trx, db.dialect, [...sums.values()], [...maxes.values()]);
    const affected = [...new Set([...activity.keys(), ...[...sums.values()].map((s) => s.user_id)])];
    const snapshots = await readPlayers(trx, affected);
    const writes: ProgressWrite[] = [];
    const told: ProgressTold[] = [];
    let unlocked = 0;
    for (const userId of affected) {
      const snap = snapshots.get(userId);
      if (!snap) continue;
      const earned = xpForActivity(activity.get(userId) ?? {});
      const gained = Object.values(earned).reduce((s, v) => s + v, 0);
      const p = progress(snap.totalXp, gained, snap.counters, snap.held);
      const xp = Object.entries(earned).map(([reason, amount]) => ({ reason, amount }));
      if (p.achievementXp > 0) xp.push({ reason: 'achievement', amount: p.achievementXp });
      if (gained === 0 && p.unlocked.length === 0) continue;
      unlocked += p.unlocked.length;
      const unlockedRows = p.unlocked.flatMap((a) => {
        const id = catalogIds.get(a.code);
        return id === undefined ? [] : [{ id, code: a.code }];
      });
      const write = {
        userId,
        totalXp: p.totalXp,
        level: p.level,
        levelBefore: p.levelBefore,
        unlockedIds: unlockedRows.map((a) => a.id),
        xp,
      };
      writes.push(write);
      told.push({ ...write, unlocked: unlockedRows });
    }
    await writeProgress(trx, db.dialect, writes, at);
    // coins for wins and unlocks, minted in this same transaction (engines/ledger.ts REWARDS)
    const rewards = writes.flatMap((w) =>
      rewardsFor(w.userId, {
        matchesWon: activity.get(w.userId)?.match_won ?? 0,
        achievements: w.unlockedIds.length,
      }),
    );
    await mintRewards(trx, db.dialect, rewards, at);
    await emitEvents(
      trx,
      db.dialect,
      [
        ...live,
        ...registeredEvents(server, created),
        ...killEvents(server, kills),
        ...boundaries,
        ...matchTold,
        ...progressEvents(told),
        ...rewardEvents(rewards),
      ],
      at,
    );
    const creditedKills = credited.filter((c) => c.killer_user_id !== null).length;
    return { kills: kills.length + creditedKills, matches: items.matches.length, unlocked };
  }

  async function applyMatch(
    trx: Trx,
    server: IngestServerRef,
    m: MatchRecord,
    userOf: (key: string) => number | undefined,
    add: (user: number, counter: Counter, n: number) => void,
    act: (user: number, what: keyof Activity, n?: number) => void,
  ): Promise<NewEvent[]> {
    const winner = m.team1Score > m.team2Score ? 1 : m.team2Score > m.team1Score ? 2 : 0;
    const matchId = await insertMatch(trx, {
      game: server.game,
      server_id: server.id,
      map: m.map.slice(0, 64),
      team1_score: m.team1Score,
      team2_score: m.team2Score,
      winner,
      ended_at: m.endedAt,
    });
    // an unlinked non-Steam player plays for nobody: their team is told and rated without them
    const resolved = (team: MatchRecord['team1']) =>
      team.flatMap((p) => {
        const userId = userOf(p.steamId);
        return userId === undefined ? [] : [{ ...p, userId }];
      });
    const team1 = resolved(m.team1);
    const inTeam1 = new Set(team1.map((p) => p.userId));
    const team2 = resolved(m.team2).filter((p) => !inTeam1.has(p.userId));
    const everyone = [...team1, ...team2];
    for (const p of everyone) {
      const won = (winner === 1 && inTeam1.has(p.userId)) || (winner === 2 && !inTeam1.has(p.userId));
      add(p.userId, 'matches_played', 1);
      act(p.userId, 'match_played');
      if (won) {
        add(p.userId, 'matches_won', 1);
        act(p.userId, 'match_won');
      }
    }
    let joined: number[] = [];
    if (m.tournamentId !== undefined) {
      const userIds = everyone.map((p) => p.userId);
      joined = await joinTournament(trx, m.tournamentId, userIds);
      for (const u of joined) add(u, 'tournaments_played', 1);
      for (const u of userIds) act(u, 'tournament_match');
    }
    const told = (elo: EloChange[]) =>
      matchEvents(server, {
        matchId,
        map: m.map.slice(0, 64),
        team1Score: m.team1Score,
        team2Score: m.team2Score,
        winner,
        team1: team1.map((p) => p.userId),
        team2: team2.map((p) => p.userId),
        endedAt: m.endedAt,
        ...(m.tournamentId === undefined ? {} : { tournamentId: m.tournamentId }),
        joined,
        elo,
      });
    if (!isEloGame(server.game) || team1.length === 0 || team2.length === 0) return told([]);
    const ratings = await readElo(
      trx,
      server.game,
      everyone.map((p) => p.userId),
    );
    const asElo = (p: (typeof everyone)[number]): EloPlayer => ({
      userId: p.userId,
      rating: ratings.get(p.userId)?.rating ?? ELO_START,
      games: ratings.get(p.userId)?.games ?? 0,
      participation: p.participation,
    });
    const changes = rateMatch(team1.map(asElo), team2.map(asElo), winner === 1 ? 1 : winner === 2 ? 0 : 0.5);
    await writeElo(
      trx,
      server.game,
      matchId,
      changes.map((c) => {
        const r = ratings.get(c.userId);
        return { ...c, games: (r?.games ?? 0) + 1, wins: (r?.wins ?? 0) + (c.won ? 1 : 0) };
      }),
      m.endedAt,
    );
    return told(changes);
  }

  /** Why a parsed log event is refused (a number out of range, a time out of the window), or null. */
  const eventRejection = (event: LogEvent, at = now()): string | null =>
    numbersOutOfBounds(event) ?? outsideWindow(window, event.at, at);

  /** Drops fingerprints and client ids that left the window; at most once an hour per process. */
  async function pruneIfDue(trx: Trx, at: number): Promise<void> {
    if (at - prunedAt < PRUNE_EVERY_MS) return;
    prunedAt = at;
    await forgetIngestedBefore(trx, windowStart(window, at));
  }

  /**
   * Log lines (CS2 HTTP stream, CS 1.6 over HTTP or UDP), applied with the server's stream state.
   * A line outside the time window is refused; a line already applied (a resent batch) is skipped.
   * `unit`: what the sender resends, a whole batch (HTTP) or one line (a UDP datagram).
   */
  async function ingestLogLines(
    server: IngestServerRef,
    lines: readonly LogLine[],
    unit: ResendUnit = 'batch',
  ): Promise<LogIngestResult> {
    const prepared = await prepare(now());
    const rejected: Rejection[] = [];
    const timely = lines.filter((l) => {
      const reason = eventRejection(l.event, prepared.at);
      if (reason !== null) rejected.push({ line: l.line, reason });
      return reason === null;
    });
    const keyed = timely.filter((l) => l.event.kind !== 'other');
    const prints = lineFingerprints(
      keyed.map((l) => l.text),
      unit,
    );
    const printOf = new Map(keyed.map((l, i) => [l, prints[i] ?? '']));
    const result = await writeTransaction(db.kysely, async (trx) => {
      await pruneIfDue(trx, prepared.at);
      const fresh = await claimLines(
        trx,
        db.dialect,
        server.id,
        keyed.map((l) => ({ fingerprint: printOf.get(l) ?? '', at: l.event.at })),
      );
      const claimed = fresh.size;
      // a fingerprint claimed now admits its first line only (later ones are the same line again)
      const events = timely
        .filter((l) => {
          const print = printOf.get(l);
          return print === undefined || fresh.delete(print);
        })
        .map((l) => l.event);
      const state = restoreState(await loadStreamState(trx, db.dialect, server.id));
      const out = applyLogEvents(state, events, endsOnTeamScores(server.game));
      const applied = await applyItems(trx, server, out, prepared);
      await saveStreamState(trx, server.id, JSON.stringify(state), prepared.at);
      return { ...applied, accepted: events.length, duplicates: keyed.length - claimed };
    });
    return { ...result, rejected };
  }

  return {
    ingestLogLines,

    eventRejection,

    /** Why an event dated `at` is refused now (the time window), or null. */
    timeRejection: (at: number): string | null => outsideWindow(window, at, now()),

    async ingestLogText(server: IngestServerRef, text: string): Promise<LogIngestResult> {
      const parsed = parseLogBatch(text);
      const result = await ingestLogLines(server, parsed.lines);
      const rejected = [...parsed.rejected, ...result.rejected].sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
      return { ...result, rejected };
    },

    /** JSON events already validated; resent client ids are skipped as duplicates. */
    async ingestItems(
      server: IngestServerRef,
      events: { clientId: string; items: BatchItems }[],
    ): Promise<ApplyResult & { accepted: number; duplicates: number }> {
      const prepared = await prepare(now());
      const at = prepared.at;
      return writeTransaction(db.kysely, async (trx) => {
        const unique = new Map<string, BatchItems>();
        for (const e of events) if (!unique.has(e.clientId)) unique.set(e.clientId, e.items);
        const fresh = unique.size
          ? await claimClientIds(trx, db.dialect, server.id, [...unique.keys()], at)
          : new Set();
        const merged: BatchItems = { kills: [], matches: [], seen: new Map() };
        const plugin: PluginHappening[] = [];
        for (const [clientId, items] of unique) {
          if (!fresh.has(clientId)) continue;
          merged.kills.push(...items.kills);
          merged.matches.push(...items.matches);
          for (const [s, n] of items.seen) merged.seen.set(s, n);
          plugin.push(...(items.plugin ?? []));
        }
        merged.happenings = await pluginHappenings(trx, server.id, plugin, merged.kills);
        const result = await applyItems(trx, server, merged, prepared);
        return { ...result, accepted: fresh.size, duplicates: events.length - fresh.size };
      });
    },
  };
}

export type IngestPipeline = ReturnType<typeof ingestPipeline>;
