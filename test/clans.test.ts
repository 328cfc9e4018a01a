import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ClanBody, ClanDetailBody, InviteBody } from '../src/modules/clans/schemas.js';
import { clanClient, expectProblem, type ClanClient, type Player } from './helpers/clans.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { TokenTable } from './helpers/token-table.js';

interface Page<T> {
  data: T[];
  meta: { total: number; page: number; per_page: number };
}

/** Clans on /v1: creating, reading, listing and the settings, with their validation and access rules. */
for (const dialect of testDialects()) {
  describe(`clans (${dialect})`, () => {
    let ctx: TestContext;
    let c: ClanClient;
    const tokens = new TokenTable();

    before(async () => {
      ctx = await createTestContext(dialect, { accessTokens: tokens });
      c = clanClient(ctx.app, tokens, ctx, ctx.key);
    });
    after(() => ctx.close());

    describe('create', () => {
      let owner: Player;
      let created: ClanDetailBody;

      before(async () => {
        owner = await c.player();
        const res = await c.call('POST', '/clans', owner, {
          name: 'Night Owls',
          tag: 'OWL',
          game: 'cs2',
          description: 'EU evening squad',
        });
        created = c.ok<{ data: ClanDetailBody }>(res, 201).data;
      });

      it('makes the creator the owner, with the documented defaults', async () => {
        assert.equal(created.name, 'Night Owls');
        assert.equal(created.tag, 'OWL');
        assert.equal(created.game, 'cs2');
        assert.equal(created.description, 'EU evening squad');
        assert.equal(created.join_policy, 'invite');
        assert.equal(created.visibility, 'public');
        assert.equal(created.max_members, 50);
        assert.equal(created.member_count, 1);
        assert.equal(created.members.length, 1);
        const [first] = created.members;
        assert.deepEqual(
          { user_id: first?.user_id, role: first?.role, avatar: first?.avatar },
          { user_id: owner.id, role: 'owner', avatar: `/avatars/${owner.id}.png` },
        );
        assert.deepEqual(await c.detail(created.id), created);
      });

      it('refuses a name or a tag another clan of the game has, in any case', async () => {
        const other = await c.player();
        const sameName = await c.call('POST', '/clans', other, {
          name: 'nIGHT oWLS',
          tag: 'NO2',
          game: 'cs2',
        });
        expectProblem(sameName, 409, 'clan_name_taken');
        const sameTag = await c.call('POST', '/clans', other, { name: 'Day Larks', tag: 'owl', game: 'cs2' });
        expectProblem(sameTag, 409, 'clan_tag_taken');
        // names and tags are unique per game only
        const otherGame = await c.call('POST', '/clans', other, {
          name: 'Night Owls',
          tag: 'OWL',
          game: 'rust',
        });
        assert.equal(otherGame.statusCode, 201, otherGame.body);
      });

      it('refuses a second clan of the same game to its owner', async () => {
        const res = await c.call('POST', '/clans', owner, { name: 'Second Home', tag: 'SH', game: 'cs2' });
        const problem = expectProblem(res, 409, 'already_in_clan');
        assert.match(problem.detail, new RegExp(`clan ${created.id} for cs2`));
        const elsewhere = await c.call('POST', '/clans', owner, {
          name: 'Second Home',
          tag: 'SH',
          game: 'cs16',
        });
        assert.equal(elsewhere.statusCode, 201, elsewhere.body);
      });

      it('refuses bad bodies with invalid_body, creating nothing', async () => {
        const before = await ctx.testDb.db.kysely.selectFrom('clans').select('id').execute();
        const p = await c.player();
        const bad: [unknown, string][] = [
          [{ tag: 'AB', game: 'cs2' }, 'name'],
          [{ name: 'ab', tag: 'AB', game: 'cs2' }, 'name'],
          [{ name: ' Padded ', tag: 'AB', game: 'cs2' }, 'name'],
          [{ name: 'Ünicode', tag: 'AB', game: 'cs2' }, 'name'],
          [{ name: 'x'.repeat(33), tag: 'AB', game: 'cs2' }, 'name'],
          [{ name: 'Fine Name', tag: 'A', game: 'cs2' }, 'tag'],
          [{ name: 'Fine Name', tag: 'TOOLONG', game: 'cs2' }, 'tag'],
          [{ name: 'Fine Name', tag: 'A-B', game: 'cs2' }, 'tag'],
          [{ name: 'Fine Name', tag: 'AB', game: 'quake' }, 'game'],
          [{ name: 'Fine Name', tag: 'AB', game: 'cs2', description: 'd'.repeat(501) }, 'description'],
        ];
        for (const [body, field] of bad) {
          const problem = expectProblem(await c.call('POST', '/clans', p, body), 400, 'invalid_body');
          assert.equal(problem.errors?.[0]?.name, field, JSON.stringify(body));
        }
        const notJson = await c.call('POST', '/clans', p, 'name=x', { 'content-type': 'application/json' });
        expectProblem(notJson, 400, 'invalid_body');
        const after = await ctx.testDb.db.kysely.selectFrom('clans').select('id').execute();
        assert.equal(after.length, before.length);
      });

      it('needs a user token with clans:write', async () => {
        const body = { name: 'Scopeless', tag: 'SCP', game: 'minecraft' };
        expectProblem(await c.call('POST', '/clans', undefined, body), 401, 'missing_token');
        expectProblem(await c.call('POST', '/clans', 'nonsense', body), 401, 'invalid_token');
        const reader = await c.player(['clans:read']);
        expectProblem(await c.call('POST', '/clans', reader, body), 403, 'insufficient_scope');
        expectProblem(await c.call('POST', '/clans', ctx.key, body), 403, 'user_context_required');
      });
    });

    describe('settings', () => {
      it('the owner and an officer change them; fields left out keep their value', async () => {
        const clan = await c.makeClan({ game: 'rust', officers: 1, members: 1 });
        const [officer] = clan.officers as [Player];
        const byOwner = await c.call('PUT', `/clans/${clan.id}/settings`, clan.owner, {
          description: 'Raids at dawn',
          max_members: 10,
        });
        const changed = c.ok<{ data: ClanBody }>(byOwner, 200).data;
        assert.equal(changed.description, 'Raids at dawn');
        assert.equal(changed.max_members, 10);
        assert.equal(changed.join_policy, 'open');
        const byOfficer = await c.call('PUT', `/clans/${clan.id}/settings`, officer, {
          join_policy: 'closed',
          visibility: 'private',
        });
        const after = c.ok<{ data: ClanBody }>(byOfficer, 200).data;
        assert.equal(after.join_policy, 'closed');
        assert.equal(after.visibility, 'private');
        assert.equal(after.description, 'Raids at dawn');
        assert.ok(after.updated_at >= after.created_at);
      });

      it('refuses members (403), outsiders (403) and unknown clans (404), changing nothing', async () => {
        const clan = await c.makeClan({ game: 'rust', members: 1 });
        const before = await c.detail(clan.id);
        const [member] = clan.members as [Player];
        const outsider = await c.player();
        for (const who of [member, outsider]) {
          const res = await c.call('PUT', `/clans/${clan.id}/settings`, who, { description: 'mine now' });
          const problem = expectProblem(res, 403, 'clan_role_required');
          assert.match(problem.detail, /needs the owner or an officer/);
        }
        expectProblem(
          await c.call('PUT', '/clans/2000000000/settings', clan.owner, { description: 'x' }),
          404,
          'clan_not_found',
        );
        assert.deepEqual(await c.detail(clan.id), before);
      });

      it('keeps max_members within bounds and never below the member count', async () => {
        const clan = await c.makeClan({ game: 'minecraft', members: 3 });
        const put = (body: unknown) => c.call('PUT', `/clans/${clan.id}/settings`, clan.owner, body);
        const problem = expectProblem(await put({ max_members: 3 }), 409, 'clan_max_members_too_low');
        assert.match(problem.detail, /has 4 members/);
        assert.equal((await c.detail(clan.id)).max_members, 50);
        c.ok(await put({ max_members: 4 }), 200);
        for (const body of [
          { max_members: 1 },
          { max_members: 101 },
          { max_members: 4.5 },
          {},
          { visibility: 'secret' },
        ]) {
          expectProblem(await put(body), 400, 'invalid_body');
        }
        expectProblem(
          await c.call('PUT', '/clans/0/settings', clan.owner, { max_members: 5 }),
          400,
          'invalid_parameter',
        );
      });

      it('a private clan is seen only by its members and the players it invited', async () => {
        const clan = await c.makeClan({ game: 'cs16', members: 1, settings: { visibility: 'private' } });
        const outsider = await c.player();
        const invitee = await c.player();
        expectProblem(await c.call('GET', `/clans/${clan.id}`, outsider), 404, 'clan_not_found');
        expectProblem(await c.call('GET', `/clans/${clan.id}`, ctx.key), 404, 'clan_not_found');
        expectProblem(
          await c.call('PUT', `/clans/${clan.id}/settings`, outsider, { description: 'x' }),
          404,
          'clan_not_found',
        );
        assert.equal((await c.detail(clan.id, clan.members[0])).id, clan.id);
        c.ok(await c.call('POST', `/clans/${clan.id}/invites`, clan.owner, { user_id: invitee.id }), 201);
        assert.equal((await c.detail(clan.id, invitee)).member_count, 2);
        const listed = (as: Player | string) =>
          c.call('GET', '/clans?game=cs16&per_page=100', as).then((r) => c.ok<Page<ClanBody>>(r, 200).data);
        assert.ok((await listed(clan.owner)).some((x) => x.id === clan.id));
        assert.ok(!(await listed(outsider)).some((x) => x.id === clan.id));
        assert.ok(!(await listed(ctx.key)).some((x) => x.id === clan.id));
      });
    });

    describe('list', () => {
      let ids: number[];
      before(async () => {
        const names = ['Alpha_Wolves', 'Alpha Bears', 'AlphaXWolves', 'Beta Crew'];
        ids = [];
        for (const [i, name] of names.entries()) {
          const p = await c.player();
          const res = await c.call('POST', '/clans', p, { name, tag: `LS${i}`, game: 'minecraft' });
          ids.push(c.ok<{ data: ClanBody }>(res, 201).data.id);
        }
      });

      it('pages clans of a game, most members first, with the total', async () => {
        const res = c.ok<Page<ClanBody>>(
          await c.call('GET', '/clans?game=minecraft&per_page=2', ctx.key),
          200,
        );
        assert.equal(res.data.length, 2);
        assert.ok(res.meta.total >= 4);
        assert.deepEqual({ page: res.meta.page, per_page: res.meta.per_page }, { page: 1, per_page: 2 });
        const all = c.ok<Page<ClanBody>>(
          await c.call('GET', '/clans?game=minecraft&per_page=100', ctx.key),
          200,
        );
        assert.ok(all.data.every((x) => x.game === 'minecraft'));
        const counts = all.data.map((x) => x.member_count);
        assert.deepEqual(
          counts,
          [...counts].sort((a, b) => b - a),
        );
      });

      it('searches names and tags without regard to case; _ and % match only themselves', async () => {
        const search = async (q: string) =>
          c
            .ok<Page<ClanBody>>(
              await c.call('GET', `/clans?game=minecraft&q=${encodeURIComponent(q)}`, ctx.key),
              200,
            )
            .data.map((x) => x.id)
            .sort((a, b) => a - b);
        assert.deepEqual(await search('ALPHA'), ids.slice(0, 3));
        assert.deepEqual(await search('alpha_'), [ids[0]]);
        assert.deepEqual(await search('ls3'), [ids[3]]);
        assert.deepEqual(await search('nothing like it'), []);
        expectProblem(await c.call('GET', '/clans?q=%25', ctx.key), 400, 'invalid_parameter');
        expectProblem(await c.call('GET', '/clans?game=quake', ctx.key), 400, 'invalid_parameter');
        expectProblem(await c.call('GET', '/clans?per_page=101', ctx.key), 400, 'invalid_parameter');
      });

      it('needs clans:read', async () => {
        const writer = await c.player(['clans:write']);
        expectProblem(await c.call('GET', '/clans', writer), 403, 'insufficient_scope');
        expectProblem(await c.call('GET', `/clans/${ids[0]}`, writer), 403, 'insufficient_scope');
        expectProblem(await c.call('GET', '/clans', undefined), 401, 'missing_token');
      });
    });

    it("lists the caller's pending invites, newest first", async () => {
      const invitee = await c.player();
      const first = await c.makeClan({ game: 'cs2' });
      const second = await c.makeClan({ game: 'cs16' });
      for (const clan of [first, second]) {
        c.ok(await c.call('POST', `/clans/${clan.id}/invites`, clan.owner, { user_id: invitee.id }), 201);
      }
      const page = c.ok<Page<InviteBody>>(await c.call('GET', '/clans/invites', invitee), 200);
      assert.equal(page.meta.total, 2);
      assert.deepEqual(
        page.data.map((i) => i.clan.id),
        [second.id, first.id],
      );
      assert.equal(page.data[0]?.invited_by, second.owner.id);
      expectProblem(await c.call('GET', '/clans/invites', ctx.key), 403, 'user_context_required');
    });
  });
}
