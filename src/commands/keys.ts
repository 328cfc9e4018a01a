import type { Db } from '../db/connect.js';
import { keysRepo } from '../modules/keys/repo.js';
import { createKey } from '../modules/keys/service.js';
import { TIER_NAMES, TIERS } from '../modules/keys/tiers.js';
import { intOption, iso, oneOf, parse, UsageError } from './args.js';

export const KEYS_USAGE = `hub keys create --tier free|authenticated|premium|partner [--name TEXT] [--quota N] [--json]
hub keys list [--json]
hub keys revoke ID`;

export async function keysCommand(db: Db, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const repo = keysRepo(db.kysely);
  switch (sub ?? '') {
    case 'create': {
      const { values } = parse(rest, {
        tier: { type: 'string' },
        name: { type: 'string' },
        quota: { type: 'string' },
        json: { type: 'boolean' },
      });
      const tier = oneOf(values.tier, 'tier', TIER_NAMES);
      if (!tier) throw new UsageError('--tier is required');
      const quota = intOption(values.quota, 'quota', 1, 100_000_000);
      const name = values.name ?? `${tier} key`;
      if (name.length > 100) throw new UsageError('--name must be at most 100 characters');
      const { record, secret } = await createKey(repo, { name, tier, quota: quota ?? null });
      if (values.json) {
        console.log(
          JSON.stringify({
            id: record.id,
            key: secret,
            name,
            tier,
            quota: quota ?? TIERS[tier],
            created_at: iso(record.created_at),
          }),
        );
      } else {
        console.log(`Created key ${record.id} (${tier}, ${quota ?? TIERS[tier]} requests/hour): ${secret}`);
        console.log('Store it now: it is shown only once.');
      }
      return;
    }
    case 'list': {
      const { values } = parse(rest, { json: { type: 'boolean' } });
      const keys = await repo.list();
      const rows = keys.map((k) => ({
        id: k.id,
        name: k.name,
        prefix: k.prefix,
        tier: k.tier ?? 'owner',
        quota: k.quota,
        user_id: k.user_id,
        created_at: iso(k.created_at),
        last_used_at: iso(k.last_used_at),
        revoked_at: iso(k.revoked_at),
      }));
      if (values.json) console.log(JSON.stringify(rows));
      else if (rows.length === 0) console.log('No keys.');
      else console.table(rows);
      return;
    }
    case 'revoke': {
      const { positionals } = parse(rest, {});
      const id = intOption(positionals[0], 'id', 1, 2147483647);
      if (id === undefined) throw new UsageError('usage: hub keys revoke ID');
      if (!(await repo.revoke(id, Date.now()))) throw new UsageError(`no active key with id ${id}`);
      console.log(`Revoked key ${id}.`);
      return;
    }
    default:
      throw new UsageError(KEYS_USAGE);
  }
}
