import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ClanDetailBody, MemberBody } from '../src/modules/clans/schemas.js';
import { clanClient, expectProblem, type ClanClient, type Player } from './helpers/clans.js';
import { createTestContext, type TestContext } from './helpers/context.js';
import { testDialects } from './helpers/db.js';
import { TokenTable } from './helpers/token-table.js';

type Actor = 'owner' | 'officer' | 'member' | 'outsider';
const ACTORS: Actor[] = ['owner', 'officer', 'member', 'outsider'];

interface Clan {
  id: number;
  owner: Player;
  officer: Player;
  /** a second officer and a second member, for actions aimed at someone */
  officer2: Player;
  member: Player;
  member2: Player;
  outsider: Player;
  invited: Player;
}

interface Action {
  name: string;
  /** status by actor; a success changes the clan, a refusal changes nothing */
  expect: Record<Actor, [number, string?]>;
  send(c: ClanClient, clan: Clan, actor: Player): ReturnType<ClanClient['call']>;
  /** what a success left behind */
  check?(after: ClanDetailBody | undefined, clan: Clan, actor: Player): void;
}

const roleOf = (detail: ClanDetailBody | undefined, p: Player) =>
  detail?.members.find((m) => m.user_id === p.id)?.role;

const DENIED: [number, string] = [403, 'clan_role_required'];

/**
 * The role rules as a matrix: every action by the owner, an officer, a member and an outsider,
 * each on a fresh clan, checking the status and code, and that a refused action changed nothing.
 */
const ACTIONS: Action[] = [
  {
    name: 'change settings',
    expect: { owner: [200], officer: [200], member: DENIED, outsider: DENIED },
    send: (c, clan, actor) => c.call('PUT', `/clans/${clan.id}/settings`, actor, { description: 'changed' }),
    check: (after) => assert.equal(after?.description, 'changed'),
  },
  {
    name: 'invite a player',
    expect: { owner: [201], officer: [201], member: DENIED, outsider: DENIED },
    send: (c, clan, actor) =>
      c.call('POST', `/clans/${clan.id}/invites`, actor, { user_id: clan.outsider.id }),
  },
  {
    name: 'revoke an invite',
    expect: { owner: [204], officer: [204], member: DENIED, outsider: DENIED },
    send: (c, clan, actor) => c.call('DELETE', `/clans/${clan.id}/invites/${clan.invited.id}`, actor),
  },
  {
    name: 'kick a member',
    expect: { owner: [204], officer: [204], member: DENIED, outsider: DENIED },
    send: (c, clan, actor) => c.call('DELETE', `/clans/${clan.id}/members/${clan.member2.id}`, actor),
    check: (after, clan) => assert.equal(roleOf(after, clan.member2), undefined),
  },
  {
    name: 'kick an officer',
    expect: { owner: [204], officer: DENIED, member: DENIED, outsider: DENIED },
    send: (c, clan, actor) => c.call('DELETE', `/clans/${clan.id}/members/${clan.officer2.id}`, actor),
    check: (after, clan) => assert.equal(roleOf(after, clan.officer2), undefined),
  },
  {
    name: 'promote a member',
    expect: { owner: [200], officer: DENIED, member: DENIED, outsider: DENIED },
    send: (c, clan, actor) => c.call('POST', `/clans/${clan.id}/members/${clan.member2.id}/promote`, actor),
    check: (after, clan) => assert.equal(roleOf(after, clan.member2), 'officer'),
  },
  {
    name: 'demote an officer',
    expect: { owner: [200], officer: DENIED, member: DENIED, outsider: DENIED },
    send: (c, clan, actor) => c.call('POST', `/clans/${clan.id}/members/${clan.officer2.id}/demote`, actor),
    check: (after, clan) => assert.equal(roleOf(after, clan.officer2), 'member'),
  },
  {
    name: 'transfer ownership',
    expect: { owner: [200], officer: DENIED, member: DENIED, outsider: DENIED },
    send: (c, clan, actor) =>
      c.call('POST', `/clans/${clan.id}/transfer`, actor, { user_id: clan.member2.id }),
    check: (after, clan) => {
      assert.equal(roleOf(after, clan.member2), 'owner');
      assert.equal(roleOf(after, clan.owner), 'officer');
      assert.equal(after?.members.filter((m) => m.role === 'owner').length, 1);
    },
  },
  {
    name: 'disband',
    expect: { owner: [204], officer: DENIED, member: DENIED, outsider: DENIED },
    send: (c, clan, actor) => c.call('DELETE', `/clans/${clan.id}`, actor),
    check: (after) => assert.equal(after, undefined),
  },
  {
    name: 'leave',
    expect: {
      owner: [409, 'clan_owner_must_transfer'],
      officer: [204],
      member: [204],
      outsider: [404, 'clan_member_not_found'],
    },
    send: (c, clan, actor) => c.call('POST', `/clans/${clan.id}/leave`, actor),
    check: (after, _clan, actor) => assert.equal(roleOf(after, actor), undefined),
  },
  {
    name: 'join (an open clan)',
    expect: {
      owner: [409, 'already_in_clan'],
      officer: [409, 'already_in_clan'],
      member: [409, 'already_in_clan'],
      outsider: [201],
    },
    send: (c, clan, actor) => c.call('POST', `/clans/${clan.id}/join`, actor),
    check: (after, _clan, actor) => assert.equal(roleOf(after, actor), 'member'),
  },
];

for (const dialect of testDialects()) {
  describe(`clan roles and membership (${dialect})`, () => {
    let ctx: TestContext;
    let c: ClanClient;
    const tokens = new TokenTable();
    let games = 0;

    before(async () => {
      ctx = await createTestContext(dialect, { accessTokens: tokens });
      c = clanClient(ctx.app, tokens, ctx, ctx.key);
    });
    after(() => ctx.close());

    /** owner, two officers, two members, an outsider and an invited player; open and public. */
    async function fixture(settings: Record<string, unknown> = {}): Promise<Clan> {
      const game = (['cs2', 'cs16', 'rust', 'minecraft'] as const)[games++ % 4];
      const made = await c.makeClan({ game, officers: 2, members: 2 });
      // invited while the clan is still open, so a closed fixture has a pending invite too
      const invited = await c.player();
      const res = await c.call('POST', `/clans/${made.id}/invites`, made.owner, { user_id: invited.id });
      c.ok(res, 201);
      c.ok(
        await c.call('PUT', `/clans/${made.id}/settings`, made.owner, { join_policy: 'open', ...settings }),
        200,
      );
      const [officer, officer2] = made.officers as [Player, Player];
      const [member, member2] = made.members as [Player, Player];
      return {
        id: made.id,
        owner: made.owner,
        officer,
        officer2,
        member,
        member2,
        outsider: await c.player(),
        invited,
      };
    }
    /** the clan as its owner sees it (undefined once it is gone) */
    const state = async (clan: Clan, viewer: Player = clan.owner) => {
      const res = await c.call('GET', `/clans/${clan.id}`, viewer);
      return res.statusCode === 404 ? undefined : c.ok<{ data: ClanDetailBody }>(res, 200).data;
    };

    for (const action of ACTIONS) {
      for (const actor of ACTORS) {
        const [status, code] = action.expect[actor];
        it(`${actor}: ${action.name} -> ${status}${code ? ` ${code}` : ''}`, async () => {
          const clan = await fixture();
          const who = clan[actor];
          const before = await state(clan, clan.member2);
          const res = await action.send(c, clan, who);
          if (status >= 400) {
            expectProblem(res, status, code ?? '');
            assert.deepEqual(await state(clan, clan.member2), before, 'a refused action changes nothing');
          } else {
            assert.equal(res.statusCode, status, res.body);
            // after a transfer to member2 or a kick of member2, read as someone still in the clan
            action.check?.(await state(clan, actor === 'outsider' ? who : clan.officer), clan, who);
          }
        });
      }
    }

    it('a private clan is 404 to an outsider for every action', async () => {
      const clan = await fixture({ visibility: 'private' });
      for (const action of ACTIONS) {
        expectProblem(await action.send(c, clan, clan.outsider), 404, 'clan_not_found');
      }
      expectProblem(await c.call('GET', `/clans/${clan.id}`, clan.outsider), 404, 'clan_not_found');
    });

    describe('joining by policy', () => {
      it('an invite-only clan takes invited players only, and uses the invite up', async () => {
        const clan = await fixture({ join_policy: 'invite' });
        expectProblem(
          await c.call('POST', `/clans/${clan.id}/join`, clan.outsider),
          403,
          'clan_invite_required',
        );
        const joined = c.ok<{ data: MemberBody }>(
          await c.call('POST', `/clans/${clan.id}/join`, clan.invited),
          201,
        );
        assert.deepEqual(
          { clan_id: joined.data.clan_id, user_id: joined.data.user_id, role: joined.data.role },
          { clan_id: clan.id, user_id: clan.invited.id, role: 'member' },
        );
        const pending = await ctx.testDb.db.kysely
          .selectFrom('clan_invites')
          .selectAll()
          .where('clan_id', '=', clan.id)
          .execute();
        assert.deepEqual(pending, []);
      });

      it('accepting needs a pending invite, whatever the policy', async () => {
        const clan = await fixture({ join_policy: 'open' });
        expectProblem(
          await c.call('POST', `/clans/${clan.id}/invites/accept`, clan.outsider),
          404,
          'clan_invite_not_found',
        );
        c.ok(await c.call('POST', `/clans/${clan.id}/invites/accept`, clan.invited), 201);
        expectProblem(
          await c.call('POST', `/clans/${clan.id}/invites/accept`, clan.invited),
          409,
          'already_in_clan',
        );
      });

      it('a closed clan takes no one, invited or not, and sends no invites', async () => {
        const clan = await fixture({ join_policy: 'closed' });
        expectProblem(await c.call('POST', `/clans/${clan.id}/join`, clan.outsider), 403, 'clan_closed');
        expectProblem(
          await c.call('POST', `/clans/${clan.id}/invites/accept`, clan.invited),
          403,
          'clan_closed',
        );
        expectProblem(
          await c.call('POST', `/clans/${clan.id}/invites`, clan.owner, { user_id: clan.outsider.id }),
          403,
          'clan_closed',
        );
        assert.equal((await state(clan))?.member_count, 5);
      });

      it('a player in another clan of the game cannot join until they leave it', async () => {
        const open = { join_policy: 'open' };
        const first = await c.makeClan({ game: 'cs2', settings: open });
        const second = await c.makeClan({ game: 'cs2', settings: open });
        const elsewhere = await c.makeClan({ game: 'rust', settings: open });
        const p = await c.player();
        c.ok(await c.call('POST', `/clans/${first.id}/join`, p), 201);
        const problem = expectProblem(
          await c.call('POST', `/clans/${second.id}/join`, p),
          409,
          'already_in_clan',
        );
        assert.match(problem.detail, new RegExp(`clan ${first.id} for cs2`));
        c.ok(await c.call('POST', `/clans/${elsewhere.id}/join`, p), 201);
        c.ok(await c.call('POST', `/clans/${first.id}/leave`, p), 204);
        c.ok(await c.call('POST', `/clans/${second.id}/join`, p), 201);
      });

      it('a full clan refuses the next player', async () => {
        const clan = await fixture({ max_members: 6 });
        c.ok(await c.call('POST', `/clans/${clan.id}/join`, clan.outsider), 201);
        const late = await c.player();
        const problem = expectProblem(await c.call('POST', `/clans/${clan.id}/join`, late), 409, 'clan_full');
        assert.match(problem.detail, /6 of 6/);
      });
    });

    describe('invites', () => {
      it('the invitee sees, declines or accepts; inviting twice keeps the first invite', async () => {
        const clan = await fixture({ visibility: 'private', join_policy: 'invite' });
        const again = await c.call('POST', `/clans/${clan.id}/invites`, clan.officer, {
          user_id: clan.invited.id,
        });
        const body = c.ok<{ data: { invited_by: number; clan: { id: number } } }>(again, 201);
        assert.equal(body.data.invited_by, clan.owner.id);
        assert.equal((await state(clan, clan.invited))?.id, clan.id);
        c.ok(await c.call('DELETE', `/clans/${clan.id}/invites/${clan.invited.id}`, clan.invited), 204);
        expectProblem(await c.call('GET', `/clans/${clan.id}`, clan.invited), 404, 'clan_not_found');
        expectProblem(
          await c.call('DELETE', `/clans/${clan.id}/invites/${clan.invited.id}`, clan.owner),
          404,
          'clan_invite_not_found',
        );
      });

      it('refuses unknown players and members', async () => {
        const clan = await fixture();
        const invite = (userId: number) =>
          c.call('POST', `/clans/${clan.id}/invites`, clan.owner, { user_id: userId });
        expectProblem(await invite(2_000_000_000), 404, 'user_not_found');
        expectProblem(await invite(clan.member.id), 409, 'already_in_clan');
        expectProblem(await invite(0), 400, 'invalid_body');
      });
    });

    describe('role changes that do not apply', () => {
      it('are 409 clan_role_conflict or 404 clan_member_not_found, changing nothing', async () => {
        const clan = await fixture();
        const before = await state(clan);
        const post = (path: string, body?: unknown) =>
          c.call('POST', `/clans/${clan.id}${path}`, clan.owner, body);
        expectProblem(await post(`/members/${clan.officer.id}/promote`), 409, 'clan_role_conflict');
        expectProblem(await post(`/members/${clan.owner.id}/promote`), 409, 'clan_role_conflict');
        expectProblem(await post(`/members/${clan.member.id}/demote`), 409, 'clan_role_conflict');
        expectProblem(await post('/transfer', { user_id: clan.owner.id }), 409, 'clan_role_conflict');
        expectProblem(await post('/transfer', { user_id: clan.outsider.id }), 404, 'clan_member_not_found');
        expectProblem(await post(`/members/${clan.outsider.id}/promote`), 404, 'clan_member_not_found');
        expectProblem(
          await c.call('DELETE', `/clans/${clan.id}/members/${clan.officer.id}`, clan.officer),
          409,
          'clan_role_conflict',
        );
        expectProblem(
          await c.call('DELETE', `/clans/${clan.id}/members/${clan.outsider.id}`, clan.owner),
          404,
          'clan_member_not_found',
        );
        assert.deepEqual(await state(clan), before);
      });

      it('after a transfer the old owner may leave and the new one may not', async () => {
        const clan = await fixture();
        c.ok(
          await c.call('POST', `/clans/${clan.id}/transfer`, clan.owner, { user_id: clan.member.id }),
          200,
        );
        expectProblem(
          await c.call('POST', `/clans/${clan.id}/leave`, clan.member),
          409,
          'clan_owner_must_transfer',
        );
        c.ok(await c.call('POST', `/clans/${clan.id}/leave`, clan.owner), 204);
        const after = await c.detail(clan.id, clan.member);
        assert.equal(after.member_count, 4);
        assert.equal(after.members.length, 4);
        assert.equal(after.members[0]?.user_id, clan.member.id);
      });
    });
  });
}
