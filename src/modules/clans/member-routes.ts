import type { App } from '../../http/app-types.js';
import { actingUserId } from '../../http/v1-route.js';
import { clanWrite } from './route-specs.js';
import {
  ClanDetailResponse,
  clanDetailBody,
  ClanParams,
  ClanUserParams,
  InviteResponse,
  inviteBody,
  MemberResponse,
  memberBody,
  NoContent,
  UserBody,
} from './schemas.js';
import type { ClansService } from './service.js';

const JOIN_ERRORS = [
  'clan_not_found',
  'already_in_clan',
  'clan_closed',
  'clan_full',
  'clan_invite_required',
  'clan_invite_not_found',
] as const;

/** Joining and leaving, invites, and what the owner and officers do to members. */
export function memberRoutes(clans: ClansService) {
  return (app: App): void => {
    app.post(
      '/clans/:id/join',
      clanWrite({
        operationId: 'v1_clans_join',
        summary: 'Join a clan',
        description:
          'The signed-in user joins an `open` clan, or an `invite` clan they have a pending invite to (the invite is used up). A `closed` clan takes no one (`403 clan_closed`); an invite-only clan without an invite is `403 clan_invite_required`. A player in another clan of the same game gets `409 already_in_clan`, and a full clan `409 clan_full`: the count is checked in the transaction that adds the member, so concurrent joins never overfill a clan.',
        params: ClanParams,
        response: MemberResponse,
        status: 201,
        errors: JOIN_ERRORS.filter((code) => code !== 'clan_invite_not_found'),
      }),
      async (request, reply) => {
        const member = await clans.join(actingUserId(request), request.params.id);
        return reply.code(201).send({ data: memberBody(member) });
      },
    );

    app.post(
      '/clans/:id/invites/accept',
      clanWrite({
        operationId: 'v1_clans_invites_accept',
        summary: 'Accept a clan invite',
        description:
          'The signed-in user accepts their pending invite and joins the clan as a member, whatever its join policy short of `closed`. Without a pending invite: `404 clan_invite_not_found`. The same rules as joining apply otherwise (one clan per game, room in the clan).',
        params: ClanParams,
        response: MemberResponse,
        status: 201,
        errors: JOIN_ERRORS.filter((code) => code !== 'clan_invite_required'),
      }),
      async (request, reply) => {
        const member = await clans.acceptInvite(actingUserId(request), request.params.id);
        return reply.code(201).send({ data: memberBody(member) });
      },
    );

    app.post(
      '/clans/:id/leave',
      clanWrite({
        operationId: 'v1_clans_leave',
        summary: 'Leave a clan',
        description:
          'The signed-in user leaves the clan. The owner cannot leave (`409 clan_owner_must_transfer`): they transfer ownership first, or disband the clan. Someone who is not a member gets `404 clan_member_not_found`.',
        params: ClanParams,
        response: NoContent,
        status: 204,
        errors: ['clan_not_found', 'clan_member_not_found', 'clan_owner_must_transfer'],
      }),
      async (request, reply) => {
        await clans.leave(actingUserId(request), request.params.id);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/clans/:id/invites',
      clanWrite({
        operationId: 'v1_clans_invites_create',
        summary: 'Invite a player',
        description:
          'The owner or an officer invites a player; the invite stays pending until the player accepts or declines it, or an officer revokes it. Inviting again keeps the first invite. A `closed` clan invites no one (`403 clan_closed`); a member cannot be invited (`409 already_in_clan`); an unknown user is `404 user_not_found`. An invited player can see the clan even when it is private.',
        params: ClanParams,
        body: UserBody('the player to invite'),
        response: InviteResponse,
        status: 201,
        errors: ['clan_not_found', 'clan_role_required', 'clan_closed', 'user_not_found', 'already_in_clan'],
      }),
      async (request, reply) => {
        const invite = await clans.invite(actingUserId(request), request.params.id, request.body.user_id);
        return reply.code(201).send({ data: inviteBody(invite) });
      },
    );

    app.delete(
      '/clans/:id/invites/:user_id',
      clanWrite({
        operationId: 'v1_clans_invites_delete',
        summary: 'Decline or revoke an invite',
        description:
          'The invited player declines their own invite (`user_id` is theirs), or the owner or an officer revokes someone\u2019s. Anyone else gets `403 clan_role_required`; an invite that is not pending is `404 clan_invite_not_found`.',
        params: ClanUserParams,
        response: NoContent,
        status: 204,
        errors: ['clan_not_found', 'clan_role_required', 'clan_invite_not_found'],
      }),
      async (request, reply) => {
        await clans.removeInvite(actingUserId(request), request.params.id, request.params.user_id);
        return reply.code(204).send(null);
      },
    );

    app.delete(
      '/clans/:id/members/:user_id',
      clanWrite({
        operationId: 'v1_clans_members_kick',
        summary: 'Remove a member',
        description:
          'Removes a member from the clan: the owner removes officers and members, an officer removes members only (`403 clan_role_required` otherwise). To remove yourself, leave (`409 clan_role_conflict`).',
        params: ClanUserParams,
        response: NoContent,
        status: 204,
        errors: ['clan_not_found', 'clan_role_required', 'clan_member_not_found', 'clan_role_conflict'],
      }),
      async (request, reply) => {
        await clans.kick(actingUserId(request), request.params.id, request.params.user_id);
        return reply.code(204).send(null);
      },
    );

    app.post(
      '/clans/:id/members/:user_id/promote',
      clanWrite({
        operationId: 'v1_clans_members_promote',
        summary: 'Promote a member to officer',
        description:
          'The owner makes a member an officer. Anyone else gets `403 clan_role_required`; promoting someone who is not a plain member is `409 clan_role_conflict`.',
        params: ClanUserParams,
        response: MemberResponse,
        errors: ['clan_not_found', 'clan_role_required', 'clan_member_not_found', 'clan_role_conflict'],
      }),
      async (request) => {
        const member = await clans.promote(actingUserId(request), request.params.id, request.params.user_id);
        return { data: memberBody(member) };
      },
    );

    app.post(
      '/clans/:id/members/:user_id/demote',
      clanWrite({
        operationId: 'v1_clans_members_demote',
        summary: 'Demote an officer to member',
        description:
          'The owner makes an officer a plain member again. Anyone else gets `403 clan_role_required`; demoting someone who is not an officer is `409 clan_role_conflict`.',
        params: ClanUserParams,
        response: MemberResponse,
        errors: ['clan_not_found', 'clan_role_required', 'clan_member_not_found', 'clan_role_conflict'],
      }),
      async (request) => {
        const member = await clans.demote(actingUserId(request), request.params.id, request.params.user_id);
        return { data: memberBody(member) };
      },
    );

    app.post(
      '/clans/:id/transfer',
      clanWrite({
        operationId: 'v1_clans_transfer',
        summary: 'Transfer ownership',
        description:
          'The owner hands the clan to another member, who becomes the owner; the previous owner stays on as an officer. A clan always has exactly one owner (held by the database). Anyone else gets `403 clan_role_required`; naming yourself is `409 clan_role_conflict`.',
        params: ClanParams,
        body: UserBody('the member who becomes the owner'),
        response: ClanDetailResponse,
        errors: ['clan_not_found', 'clan_role_required', 'clan_member_not_found', 'clan_role_conflict'],
      }),
      async (request) => {
        const detail = await clans.transfer(actingUserId(request), request.params.id, request.body.user_id);
        return { data: clanDetailBody(detail) };
      },
    );
  };
}
