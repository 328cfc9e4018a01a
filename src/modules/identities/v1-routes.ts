import { Type, type Static } from 'typebox';
import type { App } from '../../http/app-types.js';
import { ProblemError } from '../../http/problem.js';
import { actingUserId, listBody, ListOf, One, PageQuery, pageWindow, v1Route } from '../../http/v1-route.js';
import { identityOf, type LinkedPlatform } from './player.js';
import { IdentityLinkSchema, LinkCodeField, Platform, UserLinkCodeSchema } from './schemas.js';
import { linkView, type IdentityService } from './service.js';

const LinkCodeResponse = One(UserLinkCodeSchema, 'A new link code to type in game');
const LinkResponse = One(IdentityLinkSchema, 'The identity now linked to your account');
const LinksResponse = ListOf(IdentityLinkSchema, 'Your linked game identities, oldest first');

const HOW = `Links attach a Minecraft (UUID) or Epic Online Services identity to your hub account, so what a game server\u2019s plugin reports of that player (kills, matches, XP) lands on your profile; an unlinked identity credits nobody. A Steam id needs no link. See the guide *Connecting game servers* ("Identity links").`;

/** `/v1/me/links` and `/v1/me/link-codes`: a signed-in user's identity links. */
export function identityV1Routes(identities: IdentityService) {
  return (app: App): void => {
    app.post(
      '/me/link-codes',
      v1Route({
        operationId: 'v1_me_link_codes_create',
        tag: 'Users',
        summary: 'Make a link code to type in game',
        description: `${HOW}\n\nA new one-use code (6 characters such as \`7KQ-M3X\`, valid 10 minutes): the player types it in game (\`/link 7KQ-M3X\`) and the server\u2019s plugin links their identity to this account. Codes are never listed; make a new one when it expired. A replay of this answer (the same \`Idempotency-Key\`) carries \`code: null\`. Needs a user\u2019s token with \`identities:write\`.`,
        scope: 'identities:write',
        userContext: true,
        idempotency: 'optional',
        // a replay must not hand out the code again (it stays valid after the first answer)
        withheldOnReplay: ['code'],
        response: LinkCodeResponse,
        status: 201,
      }),
      async (request, reply) => {
        const issued = await identities.codeForUser(actingUserId(request));
        return reply.code(201).send({ data: issued });
      },
    );

    app.get(
      '/me/links',
      v1Route({
        operationId: 'v1_me_links_list',
        tag: 'Users',
        summary: 'List your linked game identities',
        description: `${HOW}\n\nNeeds a user\u2019s token with \`identify\`.`,
        scope: 'identify',
        userContext: true,
        querystring: Type.Object(PageQuery),
        response: LinksResponse,
      }),
      async (request): Promise<Static<typeof LinksResponse>> => {
        const all = (await identities.links(actingUserId(request))).map(linkView);
        const { limit, offset } = pageWindow(request.query);
        return listBody(all.slice(offset, offset + limit), all.length, request.query);
      },
    );

    app.post(
      '/me/links',
      v1Route({
        operationId: 'v1_me_links_create',
        tag: 'Users',
        summary: 'Link a game identity with the code a plugin showed',
        description: `${HOW}\n\nEnter the code a game server\u2019s plugin showed the player in game: that identity is linked to this account and \`player.identity_linked\` is told. \`404 link_code_invalid\`: unknown, used or expired (one answer for all three). \`409 identity_linked\`: the identity is linked to another account (nothing changes). Needs a user\u2019s token with \`identities:write\`.`,
        scope: 'identities:write',
        userContext: true,
        idempotency: 'optional',
        body: Type.Object({ code: LinkCodeField }, { additionalProperties: false }),
        response: LinkResponse,
        status: 201,
        errors: ['link_code_invalid', 'identity_linked'],
      }),
      async (request, reply) => {
        const link = await identities.linkFromAccount(actingUserId(request), request.body.code);
        return reply.code(201).send({ data: linkView(link) });
      },
    );

    app.delete(
      '/me/links/:platform/:id',
      v1Route({
        operationId: 'v1_me_links_delete',
        tag: 'Users',
        summary: 'Remove a linked game identity',
        description: `${HOW}\n\nUnlinks the identity: from now on it credits nobody (what it earned stays on your profile), and \`player.identity_unlinked\` is told. \`404 identity_link_not_found\` when you have no such link (nothing changes, nothing is told). Needs a user\u2019s token with \`identities:write\`.`,
        scope: 'identities:write',
        userContext: true,
        idempotency: 'optional',
        params: Type.Object({
          platform: Platform,
          id: Type.String({
            minLength: 1,
            maxLength: 64,
            description: 'The platform id as listed (a Minecraft UUID, dashes optional; an EOS id)',
            examples: ['069a79f4-44e9-4726-a5be-fca90e38aaf5'],
          }),
        }),
        response: Type.Null({ description: 'Unlinked' }),
        status: 204,
        errors: ['identity_link_not_found'],
      }),
      async (request, reply) => {
        const platform: LinkedPlatform = request.params.platform;
        const field = platform === 'minecraft' ? 'minecraft_uuid' : 'eos_id';
        let id: string;
        try {
          id = identityOf({ [field]: request.params.id }, 'id').id;
        } catch {
          throw new ProblemError(
            'identity_link_not_found',
            `You have no ${platform} link for ${request.params.id}.`,
          );
        }
        await identities.unlink(actingUserId(request), platform, id);
        return reply.code(204).send(null);
      },
    );
  };
}
