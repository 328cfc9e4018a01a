import { fromAnySteamId } from '../../src/engines/steam-id.js';

/**
 * A careful human's count of a whole log, written apart from the ingest parser so that replay tests
 * compare two readings, not one with itself. It reads the log in one pass with its own, simpler
 * method: players are known by the exact `"name<uid><id>` text of their connect lines, so a line
 * is a kill only when it starts with one known player's token and the rest names another;
 * anything else (chat, name changes, plugins) is just text. Teams are found by who stood on the
 * same side in the same round (no side-swap bookkeeping). The rules are docs/game-servers.md, "What counts".
 */
export interface Frag {
  killer: string;
  victim: string;
  weapon: string;
  headshot: boolean;
  round: number;
  /** counted rounds before this frag's round, over the whole log (a round's id) */
  seq: number;
  metres: number;
}
export interface CountedMatch {
  map: string;
  ct: number;
  t: number;
  /** SteamID64 -> share of counted rounds played */
  team1: Map<string, number>;
  team2: Map<string, number>;
}
export interface Tally {
  lines: number;
  /** lines that are a kill of one known player by another (bots, team kills and warm-up included) */
  killLines: number;
  frags: Frag[];
  /** counted rounds over the whole log */
  rounds: number;
  matches: CountedMatch[];
  /** SteamID64 -> name of every player who played a counted round (on a side) or is in a frag */
  players: Map<string, string>;
}

interface Known {
  uid: string;
  id: string;
  name: string;
}

const STAMP = /^L \d\d\/\d\d\/\d{4} - \d\d:\d\d:\d\d: (.*)$/;
const ANNOUNCED =
  /^"(.*)<(\d+)><([^<>]*)><>" (?:connected, address "[^"]*"|entered the game|STEAM USERID validated)$/;
const KILL_REST =
  /^<(CT|TERRORIST)>"(?: \[([-\d]+) ([-\d]+) ([-\d]+)\])? killed "(.*)<(\d+)><([^<>]*)><(CT|TERRORIST)>"(?: \[([-\d]+) ([-\d]+) ([-\d]+)\])? with "([^"]*)"(?: \(([^)]*)\))?$/;
const LAZY_SUBJECT = /^"(.*?)<(\d+)><([^<>]*)><(?:CT|TERRORIST)>"/;
const ACCOUNT = /^(?:\[U:1:\d+\]|STEAM_[01]:[01]:\d+)$/;

export function countLog(text: string, game: 'cs2' | 'cs16'): Tally {
  const lines = text.split(/\r?\n/).filter((l) => l.length > 0);
  const bodies = lines.map((l) => STAMP.exec(l)?.[1] ?? '');
  // An id that two players with different names announce is shared by bots: no account.
  const namesOfId = new Map<string, Set<string>>();
  for (const b of bodies) {
    const a = ANNOUNCED.exec(b);
    if (a) namesOfId.set(a[3] ?? '', (namesOfId.get(a[3] ?? '') ?? new Set()).add(a[1] ?? ''));
  }
  const account = (id: string): string | null =>
    ACCOUNT.test(id) && (namesOfId.get(id)?.size ?? 0) < 2 ? fromAnySteamId(id) : null;

  const tally: Tally = {
    lines: lines.length,
    killLines: 0,
    frags: [],
    rounds: 0,
    matches: [],
    players: new Map(),
  };
  const roster = new Map<string, Known>();
  let sides = new Map<string, string>(); // SteamID64 -> side
  let warmup = false;
  let serverRounds: number | null = null;
  let pending: { number: number; kills: Omit<Frag, 'seq'>[]; sides: Map<string, string> } | null = null;
  let matchRounds = 0;
  let played = new Map<string, number>();
  let lastSides = new Map<string, string>();
  let parent = new Map<string, string>();
  let scored: { ct?: number; t?: number } = {};
  let map = '';
  const root = (s: string): string => {
    const p = parent.get(s) ?? s;
    return p === s ? s : root(p);
  };
  const names = new Map<string, string>();

  const commit = () => {
    if (!pending) return;
    for (const f of pending.kills) {
      tally.frags.push({ ...f, seq: tally.rounds });
      tally.players.set(f.killer, names.get(f.killer) ?? '');
      tally.players.set(f.victim, names.get(f.victim) ?? '');
    }
    tally.rounds++;
    matchRounds++;
    const bySide = new Map<string, string>();
    for (const [s, side] of pending.sides) {
      tally.players.set(s, names.get(s) ?? '');
      played.set(s, (played.get(s) ?? 0) + 1);
      const first = bySide.get(side);
      if (first === undefined) bySide.set(side, s);
      else parent.set(root(s), root(first));
    }
    lastSides = pending.sides;
    pending = null;
  };
  const resetMatch = () => {
    pending = null;
    matchRounds = 0;
    played = new Map();
    parent = new Map();
    lastSides = new Map();
    serverRounds = null;
    scored = {};
  };
  const endMatch = (ct: number, t: number) => {
    commit();
    const ctRoot = [...lastSides].find(([, side]) => side === 'CT')?.[0];
    const tRoot = [...lastSides].find(([, side]) => side === 'TERRORIST')?.[0];
    const team = (anchor: string | undefined) =>
      new Map(
        [...played]
          .filter(([s]) => anchor !== undefined && root(s) === root(anchor))
          .map(([s, n]) => [s, n / matchRounds]),
      );
    const team1 = team(ctRoot);
    const team2 = team(tRoot);
    if (team1.size > 0 && team2.size > 0) {
      tally.matches.push({ map, ct, t, team1, team2 });
      for (const s of [...team1.keys(), ...team2.keys()]) tally.players.set(s, names.get(s) ?? '');
    }
    resetMatch();
  };
  const known = (body: string): Known | undefined => {
    for (const k of roster.values()) if (body.startsWith(`"${k.name}<${k.uid}><${k.id}>`)) return k;
    return undefined;
  };

  for (const body of bodies) {
    const a = ANNOUNCED.exec(body);
    if (a) {
      roster.set(a[2] ?? '', { name: a[1] ?? '', uid: a[2] ?? '', id: a[3] ?? '' });
      continue;
    }
    if (body.startsWith('"')) {
      let who = known(body);
      if (!who) {
        const lazy = LAZY_SUBJECT.exec(body);
        // a log that starts mid-game names players before announcing them (CS2's money lines
        // carry another number in the uid field, so a known uid is never replaced)
        if (lazy && !roster.has(lazy[2] ?? '')) {
          roster.set(lazy[2] ?? '', (who = { name: lazy[1] ?? '', uid: lazy[2] ?? '', id: lazy[3] ?? '' }));
        }
      }
      if (!who) continue;
      const rest = body.slice(`"${who.name}<${who.uid}><${who.id}>`.length);
      const me = account(who.id);
      if (me) names.set(me, who.name);
      const renamed = /^(?:<[A-Za-z]*>)?" changed name to "(.*)"$/.exec(rest);
      if (renamed) {
        who.name = renamed[1] ?? '';
        if (me) names.set(me, who.name);
        continue;
      }
      const switched =
        /^" switched from team <[^<>]*> to <([^<>]*)>$/.exec(rest) ??
        /^<[^<>]*>" joined team "([^"]*)"$/.exec(rest);
      if (switched && me) {
        const to = switched[1] ?? '';
        if (to === 'CT' || to === 'TERRORIST') sides.set(me, to);
        else sides.delete(me);
        continue;
      }
      if (/^<[^<>]*>" disconnected/.test(rest)) {
        if (me) sides.delete(me);
        roster.delete(who.uid);
        continue;
      }
      const k = KILL_REST.exec(rest);
      if (k && !roster.has(k[6] ?? ''))
        roster.set(k[6] ?? '', { name: k[5] ?? '', uid: k[6] ?? '', id: k[7] ?? '' });
      const victim = k ? roster.get(k[6] ?? '') : undefined;
      if (!k || !victim || victim.name !== k[5] || victim.id !== k[7]) continue;
      tally.killLines++;
      const them = account(victim.id);
      if (me) sides.set(me, k[1] ?? '');
      if (them) {
        sides.set(them, k[8] ?? '');
        names.set(them, victim.name);
      }
      if (!pending) continue;
      if (me) pending.sides.set(me, k[1] ?? '');
      if (them) pending.sides.set(them, k[8] ?? '');
      if (!me || !them || me === them || k[1] === k[8]) continue;
      const metres =
        k[2] === undefined
          ? 0
          : Math.round(
              Math.hypot(
                Number(k[2]) - Number(k[9]),
                Number(k[3]) - Number(k[10]),
                Number(k[4]) - Number(k[11]),
              ) *
                0.0254 *
                100,
            ) / 100;
      pending.kills.push({
        killer: me,
        victim: them,
        weapon: k[12] ?? '',
        headshot: (k[13] ?? '').split(' ').includes('headshot'),
        round: pending.number,
        metres,
      });
      continue;
    }
    const world = /^World triggered "([^"]*)"/.exec(body)?.[1];
    if (world === 'Round_Start') {
      commit();
      if (!warmup) {
        pending = { number: (serverRounds ?? matchRounds) + 1, kills: [], sides: new Map(sides) };
      }
    } else if (world === 'Warmup_Start') {
      resetMatch();
      warmup = true;
    } else if (world === 'Warmup_End') warmup = false;
    else if (world === 'Match_Start' || world === 'Game_Commencing' || world?.startsWith('Restart_Round_(')) {
      resetMatch();
      map = /on "([^"]*)"/.exec(body)?.[1] ?? map;
    } else if (world === 'Match_Reloaded') pending = null;
    const status = /^MatchStatus: Score: \d+:\d+ on map "[^"]*" RoundsPlayed: (-?\d+)$/.exec(body);
    if (status) serverRounds = Math.max(0, Number(status[1]));
    const over = /^Game Over: .* (\S+) score (\d+):(\d+)/.exec(body);
    if (over && game === 'cs2') {
      map = over[1] ?? map;
      endMatch(Number(over[2]), Number(over[3]));
    }
    const teamScored = /^Team "(CT|TERRORIST)" scored "(\d+)" with/.exec(body);
    if (teamScored && game === 'cs16') {
      if (teamScored[1] === 'CT') scored.ct = Number(teamScored[2]);
      else scored.t = Number(teamScored[2]);
      if (scored.ct !== undefined && scored.t !== undefined) endMatch(scored.ct, scored.t);
    }
    const loading = /^Loading map "([^"]*)"/.exec(body);
    if (loading) {
      commit();
      resetMatch();
      sides = new Map();
      warmup = false;
      map = loading[1] ?? '';
    }
  }
  return tally;
}
