import type { Db } from '../db/connect.js';
import type { SecretKey } from '../engines/secret-box.js';
import { RCON_PASSWORD, sealRconPassword } from '../modules/servers/commands/rcon-password.js';
import { serverCommandsRepo } from '../modules/servers/commands/repo.js';
import { usersRepo } from '../modules/users/repo.js';
import { intOption, parse, UsageError } from './args.js';

export const RCON_USAGE = `hub servers set-rcon ID --password PW [--port N] [--owner USER_ID]
hub servers grant ID USER_ID      let a user send commands to the server (POST /v1/servers/ID/command)
hub servers revoke ID USER_ID`;

/** Gives the key that seals RCON passwords, or explains how to get one. */
export type KeySource = () => SecretKey | undefined;

const NO_KEY =
  'RCON passwords are encrypted at rest and need HUB_SECRET_KEY (32 random bytes: `openssl rand -base64 32`); set the same value for `hub serve`';

const id = (value: string | undefined, name: string, usage: string): number => {
  const n = intOption(value, name, 1, 2147483647);
  if (n === undefined) throw new UsageError(`usage: ${usage}`);
  return n;
};

/** The sealed password of `--rcon-password` / `--password`, checked first. */
export function sealedPassword(password: string, key: KeySource): string {
  if (!RCON_PASSWORD.test(password))
    throw new UsageError('the RCON password must be 1 to 128 printable ASCII characters');
  const secretKey = key();
  if (!secretKey) throw new UsageError(NO_KEY);
  return sealRconPassword(secretKey, password);
}

/** An `--owner` that names an existing user. */
export async function ownerOption(db: Db, value: string | undefined): Promise<number | undefined> {
  const owner = intOption(value, 'owner', 1, 2147483647);
  if (owner !== undefined && !(await usersRepo(db.kysely).findById(owner)))
    throw new UsageError(`--owner: there is no user with id ${owner}`);
  return owner;
}

/** `hub servers set-rcon | grant | revoke`. */
export async function serverRconCommand(db: Db, sub: string, rest: string[], key: KeySource): Promise<void> {
  const repo = serverCommandsRepo(db.kysely);
  if (sub === 'set-rcon') {
    const usage = 'hub servers set-rcon ID --password PW [--port N] [--owner USER_ID]';
    const { values, positionals } = parse(rest, {
      password: { type: 'string' },
      port: { type: 'string' },
      owner: { type: 'string' },
    });
    const serverId = id(positionals[0], 'id', usage);
    if (values.password === undefined) throw new UsageError(`--password is required\nusage: ${usage}`);
    const port = intOption(values.port, 'port', 1, 65535);
    const owner = await ownerOption(db, values.owner);
    const done = await repo.setRcon(serverId, {
      rcon_password: sealedPassword(values.password, key),
      rcon_port: port ?? null,
      ...(owner === undefined ? {} : { owner_user_id: owner }),
    });
    if (!done) throw new UsageError(`no registered server with id ${serverId}`);
    console.log(
      `Server ${serverId}: RCON password set (encrypted), RCON port ${port ?? 'the game port'}${owner === undefined ? '' : `, owner user ${owner}`}.`,
    );
    return;
  }
  const usage = `hub servers ${sub} ID USER_ID`;
  const { positionals } = parse(rest, {});
  if (positionals.length !== 2) throw new UsageError(`usage: ${usage}`);
  const serverId = id(positionals[0], 'id', usage);
  const userId = id(positionals[1], 'USER_ID', usage);
  if (!(await repo.findTarget(serverId))) throw new UsageError(`no registered server with id ${serverId}`);
  if (sub === 'grant') {
    if (!(await usersRepo(db.kysely).findById(userId)))
      throw new UsageError(`there is no user with id ${userId}`);
    const granted = await repo.grant(serverId, userId, Date.now());
    console.log(
      granted
        ? `User ${userId} may now send commands to server ${serverId}.`
        : `User ${userId} could already send commands to server ${serverId}.`,
    );
    return;
  }
  const revoked = await repo.revoke(serverId, userId, Date.now());
  console.log(
    revoked
      ? `User ${userId} may no longer send commands to server ${serverId}.`
      : `User ${userId} was not an operator of server ${serverId}; nothing changed.`,
  );
}
