import type { FastifyReply } from 'fastify';
import type { App } from '../../http/app-types.js';
import { ProblemError } from '../../http/problem.js';
import type { AccountsService } from '../accounts/service.js';
import type { Flash, PortalFlashes } from '../portal/flash.js';
import { formOf, formRoute, pageReply, seeOther, signedInPage } from '../portal/pages/web-session.js';
import { IDENTITIES_PAGE, identitiesPage } from './pages.js';
import { LINKED_PLATFORMS, type LinkedPlatform } from './player.js';
import { linkView, type IdentityService } from './service.js';

const HIDE = { schema: { hide: true } } as const;
const isPlatform = (value: string): value is LinkedPlatform =>
  (LINKED_PLATFORMS as readonly string[]).includes(value);

/** The portal's *Game identities* page and its three forms (post, then redirect with a flash). */
export function identityWebRoutes(
  identities: IdentityService,
  accounts: AccountsService,
  flashes: PortalFlashes,
) {
  return (app: App): void => {
    const session = signedInPage(accounts);
    const back = async (reply: FastifyReply, owner: string, flash: Flash) =>
      seeOther(reply, `${IDENTITIES_PAGE}?flash=${await flashes.put(owner, flash)}`);
    /** Runs a form's action; a refusal (a problem) is shown on the page instead of as a problem. */
    const act = async (reply: FastifyReply, owner: string, action: () => Promise<string>) => {
      try {
        return await back(reply, owner, { kind: 'notice', success: await action() });
      } catch (err) {
        if (!(err instanceof ProblemError)) throw err;
        return back(reply, owner, { kind: 'notice', errors: [err.detail] });
      }
    };

    app.get('/identities', HIDE, async (request, reply) => {
      const account = await session(request, reply);
      if (!account) return reply;
      const flash = await flashes.take(account.sessionId, (request.query as { flash?: string }).flash);
      const links = (await identities.links(account.id)).map(linkView);
      return pageReply(reply, identitiesPage(account, links, flash?.kind === 'notice' ? flash : {}));
    });

    app.post('/identities/code', formRoute(), async (request, reply) => {
      const account = await session(request, reply);
      if (!account) return reply;
      return act(reply, account.sessionId, async () => {
        const { code, expires_at } = await identities.codeForUser(account.id);
        return `Your link code is ${code}: type /link ${code} on a hub game server before ${expires_at.slice(11, 16)} UTC. It works once.`;
      });
    });

    app.post('/identities/link', formRoute('code'), async (request, reply) => {
      const account = await session(request, reply);
      if (!account) return reply;
      const code = (formOf(request).code ?? '').trim().slice(0, 16);
      return act(reply, account.sessionId, async () => {
        const link = await identities.linkFromAccount(account.id, code);
        return `Linked: ${link.name} (${link.platform} ${link.player_id}) now plays for ${account.username}.`;
      });
    });

    app.post('/identities/remove', formRoute('platform', 'player_id'), async (request, reply) => {
      const account = await session(request, reply);
      if (!account) return reply;
      const { platform = '', player_id = '' } = formOf(request);
      return act(reply, account.sessionId, async () => {
        if (!isPlatform(platform))
          throw new ProblemError('identity_link_not_found', 'You have no such link.');
        await identities.unlink(account.id, platform, player_id.slice(0, 64));
        return `Unlinked ${platform} ${player_id}: it credits nobody from now on.`;
      });
    });
  };
}
