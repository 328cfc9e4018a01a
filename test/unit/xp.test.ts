import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { progress, weaponClass, xpForActivity, XP_RULES } from '../../src/engines/xp.js';

describe('XP engine', () => {
  it('prices activity by the documented rules', () => {
    assert.deepEqual(XP_RULES, {
      kill: 10,
      headshot: 5,
      match_played: 20,
      match_won: 50,
      tournament_match: 100,
      forum_post: 5,
    });
    assert.deepEqual(xpForActivity({ kill: 3, headshot: 2, match_played: 1, match_won: 1 }), {
      kill: 30,
      headshot: 10,
      match_played: 20,
      match_won: 50,
    });
    assert.deepEqual(xpForActivity({ tournament_match: 2, forum_post: 4 }), {
      tournament_match: 200,
      forum_post: 20,
    });
    assert.deepEqual(xpForActivity({}), {});
  });

  it('unlocks achievements once and lets their XP raise the level (worked example)', () => {
    // First kill is a 60 m headshot in a won first match:
    // 10 + 5 + 20 + 50 = 85 XP; First Blood 50 + Long Shot 100 + Rookie 50 + Winner 100 = 300 -> 385 XP, level 3.
    const p = progress(
      0,
      85,
      { kills: 1, headshots: 1, long_range_kills: 1, matches_played: 1, matches_won: 1 },
      new Set(),
    );
    assert.deepEqual(p.unlocked.map((a) => a.code).sort(), [
      'first_blood',
      'first_win',
      'long_shot',
      'rookie',
    ]);
    assert.equal(p.achievementXp, 300);
    assert.equal(p.totalXp, 385);
    assert.deepEqual([p.levelBefore, p.level], [1, 3]);
    const again = progress(385, 10, { kills: 2 }, new Set(['first_blood']));
    assert.deepEqual(again.unlocked, []);
    assert.equal(again.totalXp, 395);
  });

  it('chains level achievements: XP that crosses level 5 unlocks Getting Started (+100)', () => {
    // level 5 needs 1000 XP; 990 + 10 = 1000 -> level 5 -> +100 -> 1100 (still level 5; level 6 needs 1500)
    const p = progress(990, 10, {}, new Set());
    assert.deepEqual(
      p.unlocked.map((a) => a.code),
      ['level_5'],
    );
    assert.deepEqual([p.totalXp, p.levelBefore, p.level], [1100, 4, 5]);
    // exactly one below the threshold unlocks nothing
    assert.deepEqual(progress(989, 10, {}, new Set()).unlocked, []);
  });

  it('classifies weapons of CS 1.6, CS2 and Rust', () => {
    assert.equal(weaponClass('knife_karambit'), 'knife');
    assert.equal(weaponClass('bayonet'), 'knife');
    assert.equal(weaponClass('awp'), 'sniper');
    assert.equal(weaponClass('scout'), 'sniper');
    assert.equal(weaponClass('rifle.bolt'), 'sniper');
    assert.equal(weaponClass('usp_silencer'), 'pistol');
    assert.equal(weaponClass('weapon_deagle'), 'pistol');
    assert.equal(weaponClass('hegrenade'), 'grenade');
    assert.equal(weaponClass('inferno'), 'grenade');
    assert.equal(weaponClass('ak47'), 'other');
    assert.equal(weaponClass('rifle.ak'), 'other');
  });
});
