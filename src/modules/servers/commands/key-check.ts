import { sealedKeyId, type SecretKey } from '../../../engines/secret-box.js';
import type { ServerCommandsRepo } from './repo.js';

/**
 * Why the RCON passwords in the database cannot be opened with this key (a wrong or missing
 * HUB_SECRET_KEY), in one line naming the servers and key ids but never a secret; undefined when
 * they all can. `hub serve` refuses to start on it rather than fail every command later.
 */
export async function sealedPasswordsProblem(
  repo: Pick<ServerCommandsRepo, 'sealedPasswords'>,
  key: SecretKey | undefined,
): Promise<string | undefined> {
  const sealed = await repo.sealedPasswords();
  if (sealed.length === 0) return undefined;
  const ids = sealed.map((s) => s.id).join(', ');
  if (!key)
    return `HUB_SECRET_KEY is required: the RCON passwords of servers ${ids} are encrypted under it (set the key they were stored with)`;
  const foreign = sealed.filter((s) => sealedKeyId(s.rcon_password) !== key.id);
  if (foreign.length === 0) return undefined;
  const theirs = [...new Set(foreign.map((s) => sealedKeyId(s.rcon_password) ?? 'unknown'))].join(', ');
  return `HUB_SECRET_KEY is not the key the RCON passwords were encrypted with (servers ${foreign
    .map((s) => s.id)
    .join(
      ', ',
    )}: key id ${theirs}; HUB_SECRET_KEY has key id ${key.id}): set the original key, or set each password again with \`hub servers set-rcon\``;
}
