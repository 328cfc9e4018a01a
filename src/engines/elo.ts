/**
 * Team Elo per game (cs2, cs16), as documented in the API reference:
 * - every player starts at 1000;
 * - a team's rating is the mean of its players' ratings before the match;
 * - expected score E = 1 / (1 + 10^((R_opponent − R_team) / 400)); actual S = 1 win, 0.5 draw, 0 loss;
 * - each player's change = round(K × (S − E) × participation), where K = 50, or 100 during a player's
 *   first 10 rated matches (placement), and participation is the share of rounds the player played
 *   (1 for a full match). A player who left early therefore moves less, in either direction, except
 *   that leaving a lost match never softens the loss: a leaver on the losing side takes the full change.
 */
/** The games with an ELO ladder (team shooters with match results). */
export const ELO_GAMES = ['cs2', 'cs16'] as const;

export const ELO_START = 1000;
export const ELO_SCALE = 400;
export const K_FACTOR = 50;
export const PLACEMENT_K_FACTOR = 100;
export const PLACEMENT_MATCHES = 10;

export interface EloPlayer {
  userId: number;
  rating: number;
  /** rated matches played before this one */
  games: number;
  /** share of the match's rounds this player played, 0..1 (default 1) */
  participation?: number;
}

export interface EloChange {
  userId: number;
  before: number;
  after: number;
  delta: number;
  won: boolean;
}

export const expectedScore = (rating: number, opponent: number): number =>
  1 / (1 + 10 ** ((opponent - rating) / ELO_SCALE));

const mean = (players: EloPlayer[]): number =>
  players.length === 0 ? ELO_START : players.reduce((sum, p) => sum + p.rating, 0) / players.length;

export const kFactor = (games: number): number => (games < PLACEMENT_MATCHES ? PLACEMENT_K_FACTOR : K_FACTOR);

/**
 * Rating changes for one match. `scoreA` is team A's result: 1 (A won), 0.5 (draw), 0 (B won).
 * Pure: the caller stores the changes (and keeps them as history).
 */
export function rateMatch(teamA: EloPlayer[], teamB: EloPlayer[], scoreA: 0 | 0.5 | 1): EloChange[] {
  const ratingA = mean(teamA);
  const ratingB = mean(teamB);
  const rateTeam = (team: EloPlayer[], score: number, expected: number): EloChange[] =>
    team.map((player) => {
      const share = Math.min(1, Math.max(0, player.participation ?? 1));
      const lost = score < expected;
      const weight = lost ? 1 : share;
      const delta = Math.round(kFactor(player.games) * (score - expected) * weight);
      return {
        userId: player.userId,
        before: player.rating,
        after: player.rating + delta,
        delta,
        won: score === 1,
      };
    });
  return [
    ...rateTeam(teamA, scoreA, expectedScore(ratingA, ratingB)),
    ...rateTeam(teamB, 1 - scoreA, expectedScore(ratingB, ratingA)),
  ];
}
