import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expectedScore, rateMatch } from '../../src/engines/elo.js';

const player = (userId: number, rating: number, games = 20, participation?: number) => ({
  userId,
  rating,
  games,
  ...(participation === undefined ? {} : { participation }),
});

describe('elo engine', () => {
  it('gives an even match ±25 with K 50', () => {
    assert.equal(expectedScore(1000, 1000), 0.5);
    const changes = rateMatch([player(1, 1000), player(2, 1000)], [player(3, 1000), player(4, 1000)], 1);
    assert.deepEqual(
      changes.map((c) => [c.userId, c.delta, c.after, c.won]),
      [
        [1, 25, 1025, true],
        [2, 25, 1025, true],
        [3, -25, 975, false],
        [4, -25, 975, false],
      ],
    );
  });

  it('uses team means: 1200 vs 1000, favourite wins ≈ +12', () => {
    // E = 1 / (1 + 10^(-200/400)) = 0.7597; 50 × (1 − 0.7597) = 12.01 → 12
    const changes = rateMatch([player(1, 1300), player(2, 1100)], [player(3, 1000)], 1);
    assert.deepEqual(
      changes.map((c) => c.delta),
      [12, 12, -12],
    );
  });

  it('scores a draw between unequal teams', () => {
    // 0.5 − 0.7597 = −0.2597 × 50 = −12.99 → −13; underdog +13
    const changes = rateMatch([player(1, 1200)], [player(2, 1000)], 0.5);
    assert.deepEqual(
      changes.map((c) => c.delta),
      [-13, 13],
    );
    assert.ok(changes.every((c) => !c.won));
  });

  it('doubles K during placement matches', () => {
    const changes = rateMatch([player(1, 1000, 0)], [player(2, 1000, 10)], 1);
    assert.deepEqual(
      changes.map((c) => c.delta),
      [50, -25],
    );
  });

  it('scales a leaver’s gain by participation but not a loss', () => {
    const won = rateMatch([player(1, 1000, 20, 0.5)], [player(2, 1000, 20, 0.5)], 1);
    assert.deepEqual(
      won.map((c) => c.delta),
      [13, -25],
    );
  });
});
