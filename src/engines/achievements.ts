/**
 * The achievement catalog. Every rule is a threshold on one per-player counter, so unlocking is a
 * pure comparison that ingest evaluates incrementally as counters change (never twice: unlocks are
 * keyed by player and achievement). Codes are stable identifiers; ids are assigned by the database.
 */
export const COUNTERS = [
  'kills',
  'headshots',
  'knife_kills',
  'sniper_kills',
  'pistol_kills',
  'grenade_kills',
  'long_range_kills',
  'max_kills_in_round',
  'matches_played',
  'matches_won',
  'rust_kills',
  'cs16_kills',
  'cs2_kills',
  'forum_posts',
  'tournaments_played',
  'level',
] as const;

export type Counter = (typeof COUNTERS)[number];

export const ACHIEVEMENT_CATEGORIES = [
  'combat',
  'weapons',
  'teamwork',
  'progression',
  'community',
  'tournaments',
] as const;
export type AchievementCategory = (typeof ACHIEVEMENT_CATEGORIES)[number];

export interface AchievementDefinition {
  code: string;
  name: string;
  description: string;
  icon: string;
  category: AchievementCategory;
  xp_reward: number;
  rule: { counter: Counter; atLeast: number };
}

const def = (
  code: string,
  name: string,
  description: string,
  icon: string,
  category: AchievementCategory,
  xp_reward: number,
  counter: Counter,
  atLeast: number,
): AchievementDefinition => ({
  code,
  name,
  description,
  icon,
  category,
  xp_reward,
  rule: { counter, atLeast },
});

export const ACHIEVEMENTS: readonly AchievementDefinition[] = [
  def('first_blood', 'First Blood', 'Get your first kill.', '🩸', 'combat', 50, 'kills', 1),
  def('centurion', 'Centurion', 'Get 100 kills.', '💯', 'combat', 150, 'kills', 100),
  def('thousand_cuts', 'Thousand Cuts', 'Get 1,000 kills.', '⚔️', 'combat', 500, 'kills', 1000),
  def('legend', 'Legend', 'Get 10,000 kills.', '👑', 'combat', 2000, 'kills', 10000),
  def('headhunter', 'Headhunter', 'Land 50 headshot kills.', '🎯', 'combat', 200, 'headshots', 50),
  def('surgeon', 'Surgeon', 'Land 500 headshot kills.', '🧠', 'combat', 600, 'headshots', 500),
  def(
    'triple_threat',
    'Triple Threat',
    'Kill 3 enemies in one round.',
    '🔥',
    'combat',
    150,
    'max_kills_in_round',
    3,
  ),
  def('ace', 'Ace', 'Kill 5 enemies in one round.', '🃏', 'combat', 400, 'max_kills_in_round', 5),
  def(
    'long_shot',
    'Long Shot',
    'Get a kill from 50 metres or more.',
    '🔭',
    'combat',
    100,
    'long_range_kills',
    1,
  ),
  def(
    'marksman',
    'Marksman',
    'Get 25 kills from 50 metres or more.',
    '📏',
    'combat',
    300,
    'long_range_kills',
    25,
  ),
  def('knife_party', 'Knife Party', 'Get a knife kill.', '🔪', 'weapons', 100, 'knife_kills', 1),
  def('blade_master', 'Blade Master', 'Get 25 knife kills.', '🗡️', 'weapons', 400, 'knife_kills', 25),
  def('scoped', 'Scoped', 'Get 10 sniper rifle kills.', '🔫', 'weapons', 100, 'sniper_kills', 10),
  def('awp_god', 'AWP God', 'Get 250 sniper rifle kills.', '🦅', 'weapons', 500, 'sniper_kills', 250),
  def('sidearm', 'Sidearm', 'Get 25 pistol kills.', '🤠', 'weapons', 150, 'pistol_kills', 25),
  def('demolition', 'Demolition', 'Get 10 grenade kills.', '💣', 'weapons', 200, 'grenade_kills', 10),
  def('rookie', 'Rookie', 'Play your first match.', '🎮', 'teamwork', 50, 'matches_played', 1),
  def('regular', 'Regular', 'Play 50 matches.', '📅', 'teamwork', 250, 'matches_played', 50),
  def('veteran', 'Veteran', 'Play 250 matches.', '🎖️', 'teamwork', 750, 'matches_played', 250),
  def('first_win', 'Winner', 'Win your first match.', '🏅', 'teamwork', 100, 'matches_won', 1),
  def('winning_streak', 'Serial Winner', 'Win 25 matches.', '🏆', 'teamwork', 400, 'matches_won', 25),
  def('dynasty', 'Dynasty', 'Win 100 matches.', '🐉', 'teamwork', 1000, 'matches_won', 100),
  def('survivor', 'Survivor', 'Get 100 kills in Rust.', '🪓', 'combat', 300, 'rust_kills', 100),
  def(
    'old_school',
    'Old School',
    'Get 100 kills in Counter-Strike 1.6.',
    '📼',
    'combat',
    300,
    'cs16_kills',
    100,
  ),
  def('source_two', 'Next Gen', 'Get 100 kills in Counter-Strike 2.', '🚀', 'combat', 300, 'cs2_kills', 100),
  def('level_5', 'Getting Started', 'Reach level 5.', '⭐', 'progression', 100, 'level', 5),
  def('level_10', 'Rising Star', 'Reach level 10.', '🌟', 'progression', 250, 'level', 10),
  def('level_25', 'Elite', 'Reach level 25.', '💎', 'progression', 750, 'level', 25),
  def('level_50', 'Mythic', 'Reach level 50.', '🌌', 'progression', 2500, 'level', 50),
  def('first_post', 'Hello World', 'Write your first forum post.', '💬', 'community', 25, 'forum_posts', 1),
  def('chatterbox', 'Chatterbox', 'Write 100 forum posts.', '📣', 'community', 250, 'forum_posts', 100),
  def('contender', 'Contender', 'Play in a tournament.', '🥊', 'tournaments', 200, 'tournaments_played', 1),
  def(
    'circuit_regular',
    'Circuit Regular',
    'Play in 10 tournaments.',
    '🎪',
    'tournaments',
    750,
    'tournaments_played',
    10,
  ),
];

/** Achievements newly reached when a player's counters are `counters`, excluding ones already held. */
export function newlyUnlocked(
  counters: Partial<Record<Counter, number>>,
  held: ReadonlySet<string>,
): AchievementDefinition[] {
  return ACHIEVEMENTS.filter((a) => !held.has(a.code) && (counters[a.rule.counter] ?? 0) >= a.rule.atLeast);
}
