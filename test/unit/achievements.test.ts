import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ACHIEVEMENT_CATEGORIES, ACHIEVEMENTS, newlyUnlocked } from '../../src/engines/achievements.js';

describe('achievement catalog', () => {
  it('has at least 30 unique definitions across every category, each with an emoji and XP', () => {
    assert.ok(ACHIEVEMENTS.length >= 30);
    assert.equal(new Set(ACHIEVEMENTS.map((a) => a.code)).size, ACHIEVEMENTS.length);
    for (const category of ACHIEVEMENT_CATEGORIES) {
      assert.ok(
        ACHIEVEMENTS.some((a) => a.category === category),
        category,
      );
    }
    for (const a of ACHIEVEMENTS) {
      assert.match(a.icon, /\p{Extended_Pictographic}/u, a.code);
      assert.ok(a.xp_reward > 0 && a.rule.atLeast > 0, a.code);
    }
  });

  it('unlocks on reaching a threshold, never twice', () => {
    const first = newlyUnlocked({ kills: 1 }, new Set());
    assert.deepEqual(
      first.map((a) => a.code),
      ['first_blood'],
    );
    assert.deepEqual(newlyUnlocked({ kills: 99 }, new Set(['first_blood'])), []);
    assert.deepEqual(
      newlyUnlocked({ kills: 100, headshots: 50 }, new Set(['first_blood'])).map((a) => a.code),
      ['centurion', 'headhunter'],
    );
  });
});
