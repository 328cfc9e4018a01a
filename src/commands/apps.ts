import type { Db } from '../db/connect.js';
import { ProblemError } from '../http/problem.js';
import { appsRepo } from '../modules/apps/repo.js';
import { appView } from '../modules/apps/schemas.js';
import { appsService } from '../modules/apps/service.js';
import { oauthStoreRepo } from '../modules/oauth/store-repo.js';
import { announceClientDeleted } from '../modules/oauth/verifier.js';
import { openStores, type StoresConfig } from '../stores.js';
import { intOption, parse, UsageError } from './args.js';

export const APPS_USAGE = `hub apps create --owner USER_ID --name TEXT --redirect-uri URI [--redirect-uri URI ...] [--public] [--homepage URL] [--json]
hub apps list [--owner USER_ID] [--json]
hub apps delete ID`;

/**
 * The operator's view of registered OAuth apps. Deleting one removes its grants and tokens from
 * the database and, with REDIS_URL set, tells every running API instance at once; without Redis a
 * running instance (there is one on the embedded setup) stops accepting its cached tokens within
 * 30 s.
 */
export async function appsCommand(db: Db, argv: string[], config: StoresConfig = {}): Promise<void> {
  const [sub, ...rest] = argv;
  const store = oauthStoreRepo(db.kysely);
  const service = appsService(appsRepo(db.kysely), (clientId) => store.deleteByClient(clientId), Date.now);
  try {
    switch (sub ?? '') {
      case 'create': {
        const { values } = parse(rest, {
          owner: { type: 'string' },
          name: { type: 'string' },
          'redirect-uri': { type: 'string', multiple: true },
          public: { type: 'boolean' },
          homepage: { type: 'string' },
          json: { type: 'boolean' },
        });
        const owner = intOption(values.owner, 'owner', 1, 2147483647);
        if (owner === undefined || !values.name || !values['redirect-uri']?.length) {
          throw new UsageError(`--owner, --name and --redirect-uri are required\n${APPS_USAGE}`);
        }
        const { app, secret } = await service.create(owner, {
          name: values.name,
          kind: values.public ? 'public' : 'confidential',
          redirect_uris: values['redirect-uri'],
          homepage_url: values.homepage ?? null,
        });
        if (values.json) {
          console.log(JSON.stringify({ ...appView(app), client_secret: secret ?? null }));
        } else {
          console.log(`Created app ${app.id} (${app.kind}): client_id ${app.client_id}`);
          if (secret) console.log(`Client secret: ${secret}\nStore it now: it is shown only once.`);
        }
        return;
      }
      case 'list': {
        const { values } = parse(rest, { owner: { type: 'string' }, json: { type: 'boolean' } });
        const owner = intOption(values.owner, 'owner', 1, 2147483647);
        const rows = (await service.list(owner)).map((a) => ({ ...appView(a), owner_id: a.owner_id }));
        if (values.json) console.log(JSON.stringify(rows));
        else if (rows.length === 0) console.log('No apps.');
        else
          console.table(
            rows.map((r) => ({
              id: r.id,
              name: r.name,
              kind: r.kind,
              client_id: r.client_id,
              owner_id: r.owner_id,
            })),
          );
        return;
      }
      case 'delete': {
        const { positionals } = parse(rest, {});
        const id = intOption(positionals[0], 'id', 1, 2147483647);
        if (id === undefined) throw new UsageError('usage: hub apps delete ID');
        const app = await service.delete(undefined, id);
        await announce(config, db, app.client_id);
        console.log(`Deleted app ${id} (${app.name}); its grants and tokens are revoked.`);
        return;
      }
      default:
        throw new UsageError(APPS_USAGE);
    }
  } catch (err) {
    // the service's rules speak HTTP problems; the operator gets their text
    if (err instanceof ProblemError) throw new UsageError(err.message);
    throw err;
  }
}

/** With REDIS_URL, the running instances forget the app's cached tokens now rather than in 30 s. */
async function announce(config: StoresConfig, db: Db, clientId: string): Promise<void> {
  if (!config.REDIS_URL) return;
  const quiet = { info: () => undefined, warn: (_: object, message: string) => console.error(message) };
  const stores = await openStores(config, { db: db.kysely, log: quiet });
  announceClientDeleted(stores.broadcast, clientId);
  await stores.close();
}
