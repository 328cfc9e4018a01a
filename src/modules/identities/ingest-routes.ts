import type { FastifyRequest } from 'fastify';
import { Type, type Static } from 'typebox';
import type { App } from '../../http/app-types.js';
import { errorResponses, ProblemError } from '../../http/problem.js';
import { identityOf, LinkPlayerSchema, type Identity, type PlayerBody } from './player.js';
import { LinkCodeField, LinkCodeSchema } from './schemas.js';
import type { IdentityService } from './service.js';
import type { UsersRepo } from '../users/repo.js';

const LinkedSchema = Type.Object(
  {
    user_id: Type.Integer({ description: 'the hub user the identity is now linked to', examples: [42] }),
    username: Type.String({ description: 'their username, to tell the player', examples: ['NovaStrike'] }),
  },
  { description: 'The hub account the identity is linked to' },
);

const LINKS_DOC = `A Minecraft or EOS player links their in-game identity to a hub account with a one-use code (6 characters such as \`7KQ-M3X\`, valid 10 minutes). Either the user makes the code (portal page *Game identities*, or \`POST /v1/me/link-codes\`) and the player types it in game, which the plugin posts to \`POST /api-platform/ingest/links\`; or the plugin asks \`POST /api-platform/ingest/link-codes\` for a code it shows the player, who enters it in the portal (or \`POST /v1/me/links\`). From then on the identity\u2019s kills, matches and XP land on that profile (earlier events are not credited again). A Steam id needs no link: it has a hub profile of its own (the routes take \`minecraft_uuid\` or \`eos_id\` only).`;

/** The player object's identity, or a 400 naming what is wrong with it. */
function identityIn(player: PlayerBody): Identity {
  try {
    return identityOf(player, 'player');
  } catch (err) {
    throw new ProblemError('invalid_body', err instanceof Error ? err.message : 'player is not valid');
  }
}

/**
 * The plugin's side of identity links, registered inside the ingest routes (their token check);
 * `serverOf` is the server the request's ingest token names.
 */
export function identityIngestRoutes(identities: IdentityService, users: Pick<UsersRepo, 'findById'>) {
  return (app: App, serverOf: (request: FastifyRequest) => { id: number }): void => {
    const documented = { tags: ['Ingest'], security: [{ ingestToken: [] }] };
    const errors = (...extra: Parameters<typeof errorResponses>) =>
      errorResponses(
        'invalid_body',
        'invalid_server_token',
        'unsupported_media_type',
        'internal_error',
        ...extra,
      );

    app.post(
      '/links',
      {
        schema: {
          operationId: 'ingest_links_create',
          ...documented,
          summary: 'Link a player to the hub account whose code they typed',
          description: `\`POST /api-platform/ingest/links\` (Bearer: the server\u2019s ingest token).\n\n${LINKS_DOC}\n\nThe player typed a user\u2019s code in game: the identity is linked to that user and \`player.identity_linked\` is told to them. \`404 link_code_invalid\`: unknown, used or expired (one answer for all three). \`409 identity_linked\`: the identity is linked to another account (nothing changes; the code stays usable). Linking again to the same account answers 200 and changes nothing but spending the code.`,
          body: Type.Object(
            { player: LinkPlayerSchema, code: LinkCodeField },
            { additionalProperties: false },
          ),
          response: { 200: LinkedSchema, ...errors('link_code_invalid', 'identity_linked') },
        },
      },
      async (request): Promise<Static<typeof LinkedSchema>> => {
        const { player, code } = request.body;
        const identity = identityIn(player);
        const link = await identities.linkFromGame(serverOf(request).id, identity, player.name, code);
        // the link's user cannot be gone: removing a user removes their links (foreign key)
        const username = (await users.findById(link.user_id))?.username ?? '';
        return { user_id: link.user_id, username };
      },
    );

    app.post(
      '/link-codes',
      {
        schema: {
          operationId: 'ingest_link_codes_create',
          ...documented,
          summary: 'Make a link code for a player to enter in the portal',
          description: `\`POST /api-platform/ingest/link-codes\` (Bearer: the server\u2019s ingest token).\n\n${LINKS_DOC}\n\nA code for this player that the plugin shows in game; the hub user enters it in the portal or with \`POST /v1/me/links\`. \`409 identity_linked\`: the identity is already linked (to anybody).`,
          body: Type.Object({ player: LinkPlayerSchema }, { additionalProperties: false }),
          response: { 201: LinkCodeSchema, ...errors('identity_linked') },
        },
      },
      async (request, reply) => {
        const { player } = request.body;
        const issued = await identities.codeForPlayer(serverOf(request).id, identityIn(player), player.name);
        return reply.code(201).send(issued);
      },
    );
  };
}
