/**
 * Events read from HL-format log lines (CS2, CS:GO, CS 1.6). A participant is written
 * `"Name<userid><id><team>"`; `id` is kept raw (`[U:1:N]`, `STEAM_0:1:N`, `BOT`, …) and `steamId`
 * is the SteamID64 when the id names a real account (engines/counting.ts), else null.
 */
export interface LogPlayer {
  name: string;
  /** the server's user id of this connection (the `<digits>` field) */
  uid: string;
  /** the id field as written */
  id: string;
  /** SteamID64, or null for bots, LAN, pending, HLTV and emulator ids */
  steamId: string | null;
  /** `CT`, `TERRORIST`, `Unassigned`, `Spectator`, or empty (CS2 omits it on some lines) */
  team: string;
}

export interface Vec3 {
  x: number;
  y: number;
  z: number;
}

/** An event whose participants are players: the only ones a roster can confirm or refute. */
export type PlayerEvent =
  | {
      kind: 'kill';
      at: number;
      killer: LogPlayer;
      victim: LogPlayer;
      killerPos: Vec3 | null;
      victimPos: Vec3 | null;
      weapon: string;
      flags: string[];
    }
  | { kind: 'suicide'; at: number; player: LogPlayer; weapon: string }
  /** `say` (everyone) or `say_team` (the sender's team); `text` as typed, quotes and all */
  | { kind: 'chat'; at: number; player: LogPlayer; channel: 'all' | 'team'; text: string }
  | { kind: 'rename'; at: number; player: LogPlayer; newName: string }
  | { kind: 'team'; at: number; player: LogPlayer; team: string }
  | { kind: 'connect'; at: number; player: LogPlayer }
  | { kind: 'entered'; at: number; player: LogPlayer }
  | { kind: 'disconnect'; at: number; player: LogPlayer }
  /** a verb we do not use (`purchased`, `triggered`, `attacked`, a plugin's): only a reading to weigh */
  | { kind: 'action'; at: number; player: LogPlayer };

export type LogEvent =
  | PlayerEvent
  /**
   * A player line that reads as more than one event because a name or chat text contains what
   * looks like a participant token. The stream's roster picks one, or none (see match-state).
   */
  | { kind: 'ambiguous'; at: number; options: PlayerEvent[] }
  | { kind: 'round_start'; at: number }
  | { kind: 'round_end'; at: number }
  /** `Game_Commencing`, `Restart_Round_(N_seconds)`: the round in play and the score are void */
  | { kind: 'restart'; at: number }
  | { kind: 'match_start'; at: number; map: string | null }
  /** `Match_Reloaded`: a round backup was restored; the rounds not yet counted are void */
  | { kind: 'match_reloaded'; at: number }
  | { kind: 'warmup_start'; at: number }
  | { kind: 'warmup_end'; at: number }
  | { kind: 'score'; at: number; ct: number; t: number }
  /** `MatchStatus: Score: ct:t on map "m" RoundsPlayed: n` (CS2), the server's own round counter */
  | { kind: 'match_status'; at: number; ct: number; t: number; roundsPlayed: number }
  /** `Team "CT" scored "7" with "6" players`: every round end in CS2/CS:GO, the map's end in CS 1.6 */
  | { kind: 'team_scored'; at: number; team: string; score: number }
  | { kind: 'game_over'; at: number; map: string; ct: number; t: number }
  | { kind: 'map'; at: number; map: string }
  | { kind: 'log_closed'; at: number }
  | { kind: 'other'; at: number };

export type ParseResult = { ok: true; event: LogEvent } | { ok: false; reason: string };
