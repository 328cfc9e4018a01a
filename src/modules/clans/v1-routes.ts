import type { App } from '../../http/app-types.js';
import { actingUserId, listBody, pageWindow, v1Route, viewerId } from '../../http/v1-route.js';
import { memberRoutes } from './member-routes.js';
import { CLANS_TAG, clanWrite } from './route-specs.js';
import {
  clanBody,
  ClanDetailResponse,
  clanDetailBody,
  ClanParams,
  ClanResponse,
  ClansQuery,
  ClansResponse,
  CreateClanBody,
  inviteBody,
  InvitesQuery,
  InvitesResponse,
  NoContent,
  SettingsBody,
} from './schemas.js';
import { NEW_CLAN_DEFAULTS, type ClansService } from './service.js';

/** The clan itself: list, read, create, settings, disband; and the caller's pending invites. */
export function clansV1Routes(clans: ClansService) {
  return (app: App): void => {
    app.get(
      '/clans',
      v1Route({
        operationId: 'v1_clans_list',
        tag: CLANS_TAG,
        summary: 'List clans',
        description:
          'Public clans, and the private clans the caller belongs to, most members first (then id ascending), optionally of one `game` and matching `q` in the name or tag (any case), paged with `page` and `per_page`. An API key may call it as well as an OAuth token with `clans:read`; with an API key only public clans are listed.',
        scope: 'clans:read',
        querystring: ClansQuery,
        response: ClansResponse,
      }),
      async (request) => {
        const { game, q } = request.query;
        const { rows, total } = await clans.list({
          ...(game ? { game } : {}),
          ...(q ? { search: q } : {}),
          viewerId: viewerId(request),
          ...pageWindow(request.query),
        });
        return listBody(rows.map(clanBody), total, request.query);
      },
    );

    app.get(
      '/clans/invites',
      v1Route({
        operationId: 'v1_clans_invites_list',
        tag: CLANS_TAG,
        summary: 'Your pending clan invites',
        description:
          'The clans that invited the signed-in user and are waiting for an answer, newest first. Accept one with `POST /v1/clans/{id}/invites/accept`, decline it with `DELETE /v1/clans/{id}/invites/{your user id}`.',
        scope: 'clans:read',
        userContext: true,
        querystring: InvitesQuery,
        response: InvitesResponse,
      }),
      async (request) => {
        const { rows, total } = await clans.invitesOf(actingUserId(request), pageWindow(request.query));
        return listBody(rows.map(inviteBody), total, request.query);
      },
    );

    app.get(
      '/clans/:id',
      v1Route({
        operationId: 'v1_clans_get',
        tag: CLANS_TAG,
        summary: 'A clan with its members',
        description:
          'The clan, its settings and every member with their role (the owner, then officers, then members). A private clan is shown only to its members and to the players it invited; to anyone else, an API key included, it is `404 clan_not_found`, exactly like an id that does not exist.',
        scope: 'clans:read',
        params: ClanParams,
        response: ClanDetailResponse,
        errors: ['clan_not_found'],
      }),
      async (request) => ({
        data: clanDetailBody(await clans.get(request.params.id, viewerId(request))),
      }),
    );

    app.post(
      '/clans',
      clanWrite({
        operationId: 'v1_clans_create',
        summary: 'Create a clan',
        description: `Creates a clan of one game with the signed-in user as its owner. Name and tag are unique per game without regard to case (\`409 clan_name_taken\`, \`409 clan_tag_taken\`), and a player belongs to at most one clan per game (\`409 already_in_clan\`); both rules are held by the database, so concurrent requests cannot break them. A new clan is \`${NEW_CLAN_DEFAULTS.visibility}\`, joined by \`${NEW_CLAN_DEFAULTS.join_policy}\`, with room for ${NEW_CLAN_DEFAULTS.max_members} members; change that with \`PUT /v1/clans/{id}/settings\`.`,
        body: CreateClanBody,
        response: ClanDetailResponse,
        status: 201,
        errors: ['clan_name_taken', 'clan_tag_taken', 'already_in_clan'],
      }),
      async (request, reply) => {
        const created = await clans.create(actingUserId(request), request.body);
        return reply.code(201).send({ data: clanDetailBody(created) });
      },
    );

    app.put(
      '/clans/:id/settings',
      clanWrite({
        operationId: 'v1_clans_settings_update',
        summary: 'Change a clan\u2019s settings',
        description:
          'The owner or an officer changes the description, join policy, visibility or maximum number of members; settings left out of the body keep their value. Anyone else gets `403 clan_role_required` (`404 clan_not_found` for a private clan they cannot see). `max_members` cannot go below the current member count (`409 clan_max_members_too_low`).',
        params: ClanParams,
        body: SettingsBody,
        response: ClanResponse,
        errors: ['clan_not_found', 'clan_role_required', 'clan_max_members_too_low'],
      }),
      async (request) => ({
        data: clanBody(await clans.updateSettings(actingUserId(request), request.params.id, request.body)),
      }),
    );

    app.delete(
      '/clans/:id',
      clanWrite({
        operationId: 'v1_clans_disband',
        summary: 'Disband a clan',
        description:
          'The owner deletes the clan with its memberships and pending invites; every member is free to join another clan of the game. Anyone else gets `403 clan_role_required`.',
        params: ClanParams,
        response: NoContent,
        status: 204,
        errors: ['clan_not_found', 'clan_role_required'],
      }),
      async (request, reply) => {
        await clans.disband(actingUserId(request), request.params.id);
        return reply.code(204).send(null);
      },
    );

    memberRoutes(clans)(app);
  };
}
