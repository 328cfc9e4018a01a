import { newlyUnlocked, type AchievementDefinition, type Counter } from './achievements.js';
import { levelForXp } from './levels.js';

/**
 * XP rules, as documented in the API reference. XP is earned for:
 *   a kill 10, a headshot kill +5 more, a match played 20, a match won +50 more,
 *   a tournament match 100, a forum post 5, and each achievement its own `xp_reward`.
 * Levels follow `levels.ts` (reaching level L takes 50·L·(L−1) total XP).
 */
export const XP_RULES = {
  kill: 10,
  headshot: 5,
  match_played: 20,
  match_won: 50,
  tournament_match: 100,
  forum_post: 5,
} as const;

export type XpReason = keyof typeof XP_RULES | 'achievement';

export type Activity = Partial<Record<keyof typeof XP_RULES, number>>;

/** XP for counted activity, per reason (reasons with 0 XP are left out). */
export function xpForActivity(activity: Activity): Partial<Record<XpReason, number>> {
  const out: Partial<Record<XpReason, number>> = {};
  for (const reason of Object.keys(XP_RULES) as (keyof typeof XP_RULES)[]) {
    const xp = (activity[reason] ?? 0) * XP_RULES[reason];
    if (xp > 0) out[reason] = xp;
  }
  return out;
}

export interface Progress {
  totalXp: number;
  levelBefore: number;
  level: number;
  unlocked: AchievementDefinition[];
  achievementXp: number;
}

/**
 * Adds `gainedXp` to a player and unlocks what their counters and new level reach. Achievement XP
 * can raise the level, which can unlock a level achievement, so this repeats until nothing new
 * unlocks (at most once per achievement: `held` grows as it goes, so nothing unlocks twice).
 */
export function progress(
  totalXpBefore: number,
  gainedXp: number,
  counters: Partial<Record<Counter, number>>,
  held: ReadonlySet<string>,
): Progress {
  const levelBefore = levelForXp(totalXpBefore);
  const have = new Set(held);
  const unlocked: AchievementDefinition[] = [];
  let totalXp = totalXpBefore + gainedXp;
  let achievementXp = 0;
  for (;;) {
    const fresh = newlyUnlocked({ ...counters, level: levelForXp(totalXp) }, have);
    if (fresh.length === 0) break;
    for (const a of fresh) {
      have.add(a.code);
      unlocked.push(a);
      totalXp += a.xp_reward;
      achievementXp += a.xp_reward;
    }
  }
  return { totalXp, levelBefore, level: levelForXp(totalXp), unlocked, achievementXp };
}

/** Weapon families for the weapon achievements; codes as CS 1.6, CS2 and Rust write them. */
const KNIFE = /knife|bayonet|karambit|butterfly|dagger|machete|melee|bone\.club|salvaged\.sword/;
const SNIPER = /^(awp|ssg08|scout|g3sg1|sg550|scar20|rifle\.bolt|rifle\.l96)$/;
const PISTOL =
  /^(glock|usp|usp_silencer|usp_silencer_off|hkp2000|p2000|p228|p250|fiveseven|tec9|cz75a|deagle|revolver|elite|pistol\..*)$/;
const GRENADE = /^(hegrenade|grenade|inferno|molotov|incgrenade|grenade\..*|explosive\..*)$/;

export type WeaponClass = 'knife' | 'sniper' | 'pistol' | 'grenade' | 'other';

export function weaponClass(weapon: string): WeaponClass {
  const w = weapon.toLowerCase().replace(/^weapon_/, '');
  if (KNIFE.test(w)) return 'knife';
  if (SNIPER.test(w)) return 'sniper';
  if (PISTOL.test(w)) return 'pistol';
  if (GRENADE.test(w)) return 'grenade';
  return 'other';
}

/** Kills from 50 m or more count as long-range. */
export const LONG_RANGE_METRES = 50;
