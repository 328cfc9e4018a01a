import type { App } from '../../http/app-types.js';
import type { AccountsService } from '../accounts/service.js';
import { portalAuthRoutes } from './auth-routes.js';
import type { PortalKeysService } from './keys-service.js';
import { portalKeyRoutes } from './routes.js';
import { AccountSchema, PortalKeySchema } from './schemas.js';
import { PORTAL_PREFIX, privatePages, requireSessionHook } from './session-auth.js';

export interface PortalDeps {
  accounts: AccountsService;
  keys: PortalKeysService;
  /** the web pages, registered in the same prefix */
  pages?: (app: App) => void;
  /** JSON routes of other features that need the signed-in account (apps, authorized apps) */
  signedInRoutes?: (app: App) => void;
}

/** Everything under /api-platform/developer: JSON routes (documented) and the web pages. */
export async function registerPortal(app: App, deps: PortalDeps): Promise<void> {
  app.addSchema(PortalKeySchema);
  app.addSchema(AccountSchema);
  await app.register(
    async (portal: App) => {
      // Portal answers are per account and may hold a secret (framing is refused on every
      // response by request-basics.ts).
      privatePages(portal);
      portalAuthRoutes(deps.accounts)(portal);
      await portal.register(async (signedIn: App) => {
        signedIn.addHook('onRequest', requireSessionHook(deps.accounts));
        portalKeyRoutes(deps.keys)(signedIn);
        deps.signedInRoutes?.(signedIn);
      });
      const pages = deps.pages;
      if (pages) await portal.register(async (web: App) => pages(web));
    },
    { prefix: PORTAL_PREFIX },
  );
}
