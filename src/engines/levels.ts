/**
 * Levels from total XP. Reaching level L takes 50·L·(L−1) XP in total, so level 2 needs 100 XP,
 * level 3 needs 300, level 10 needs 4,500 and each level costs 100 XP more than the one before.
 * `xp` in user stats is the progress inside the current level.
 */
export const XP_STEP = 50;

export const xpForLevel = (level: number): number => XP_STEP * level * (level - 1);

export function levelForXp(totalXp: number): number {
  if (totalXp <= 0) return 1;
  let level = Math.floor((1 + Math.sqrt(1 + (4 * totalXp) / XP_STEP)) / 2);
  // correct for floating-point error at exact thresholds
  while (xpForLevel(level + 1) <= totalXp) level++;
  while (level > 1 && xpForLevel(level) > totalXp) level--;
  return level;
}

export const xpIntoLevel = (totalXp: number): number =>
  Math.max(0, totalXp - xpForLevel(levelForXp(totalXp)));
