import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ACHIEVEMENTS, ACHIEVEMENT_CATEGORIES } from '../src/engines/achievements.js';
import type { AchievementsBody } from '../src/modules/achievements/routes.js';
import { contentFactories, type ContentFactories } from './helpers/content-factories.js';
import { createTestContext, json, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { expectInvalidParameter } from './helpers/expect-problem.js';

type Made = Awaited<ReturnType<ContentFactories['makeAchievement']>>;

for (const dialect of testDialects()) {
  describe(`achievements (${dialect})`, () => {
    let ctx: TestContext;
    const catalog: Made[] = [];
    const view = ({ id, name, description, icon, category, xp_reward }: Made) => ({
      id,
      name,
      description,
      icon,
      category,
      xp_reward,
    });
    const list = async (query = '') => {
      const res = await ctx.get(`/achievements${query}`);
      assert.equal(res.statusCode, 200, res.body);
      return json<AchievementsBody>(res).achievements;
    };

    before(async () => {
      ctx = await createTestContext(dialect);
      const content = contentFactories(ctx.testDb.db);
      // The real catalog, as ingest would load it; ids follow catalog order.
      for (const { code, name, description, icon, category, xp_reward } of ACHIEVEMENTS) {
        catalog.push(await content.makeAchievement({ code, name, description, icon, category, xp_reward }));
      }
    });
    after(() => ctx.close());

    it('lists the whole catalog by id, with exactly the documented fields', async () => {
      const res = await ctx.get('/achievements');
      assert.equal(res.statusCode, 200);
      const body = json<AchievementsBody>(res);
      assert.deepEqual(Object.keys(body), ['achievements']);
      assert.equal(body.achievements.length, 33);
      assert.deepEqual(body.achievements[0], {
        id: catalog[0]?.id,
        name: 'First Blood',
        description: 'Get your first kill.',
        icon: '🩸',
        category: 'combat',
        xp_reward: 50,
      });
      assert.deepEqual(body.achievements[2]?.icon, '⚔️');
      assert.deepEqual(body.achievements, catalog.map(view));
    });

    it('filters by category, keeping id order', async () => {
      assert.deepEqual(
        (await list('?category=tournaments')).map(({ name, xp_reward }) => [name, xp_reward]),
        [
          ['Contender', 200],
          ['Circuit Regular', 750],
        ],
      );
      assert.deepEqual(
        (await list('?category=community')).map((a) => a.name),
        ['Hello World', 'Chatterbox'],
      );
      // combat rules are spread through the catalog (survivor, old_school, source_two come later)
      const combat = await list('?category=combat');
      assert.equal(combat.length, 13);
      assert.deepEqual(
        combat.slice(-3).map((a) => a.name),
        ['Survivor', 'Old School', 'Next Gen'],
      );
      let total = 0;
      for (const category of ACHIEVEMENT_CATEGORIES) {
        const got = await list(`?category=${category}`);
        assert.deepEqual(got, catalog.filter((a) => a.category === category).map(view), category);
        total += got.length;
      }
      assert.equal(total, 33);
    });

    it('rejects a category outside the catalog with a problem listing the allowed values', async () => {
      for (const bad of ['Combat', 'sniping', '', 'combat,weapons', '1']) {
        await expectInvalidParameter(
          ctx,
          `/achievements?category=${encodeURIComponent(bad)}`,
          'category',
          'one of: combat, weapons, teamwork, progression, community, tournaments',
        );
      }
    });
  });
}
