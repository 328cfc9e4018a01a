import { randomBytes } from 'node:crypto';
import type { Db } from '../db/connect.js';
import { hashPassword } from '../modules/accounts/password.js';
import { accountsRepo } from '../modules/accounts/repo.js';
import { accountRuleErrors } from '../modules/accounts/rules.js';
import { tierForOwner, type Subscription } from '../modules/keys/tiers.js';
import { intOption, oneOf, parse, UsageError } from './args.js';

export const USERS_USAGE = `hub users create USERNAME [--password-stdin] [--subscription none|active|premium] [--partner] [--json]
hub users set-subscription ID none|active|premium
hub users set-partner ID true|false`;

const SUBSCRIPTIONS: readonly Subscription[] = ['none', 'active', 'premium'];

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/** Operator commands for hub accounts. `input` supplies the password for --password-stdin (tests pass it). */
export async function usersCommand(
  db: Db,
  argv: string[],
  input: () => Promise<string> = readStdin,
): Promise<void> {
  const [sub, ...rest] = argv;
  const repo = accountsRepo(db.kysely);
  const id = (value: string | undefined) => {
    const n = intOption(value, 'id', 1, 2147483647);
    if (n === undefined) throw new UsageError(USERS_USAGE);
    return n;
  };
  switch (sub ?? '') {
    case 'create': {
      const { values, positionals } = parse(rest, {
        'password-stdin': { type: 'boolean' },
        subscription: { type: 'string' },
        partner: { type: 'boolean' },
        json: { type: 'boolean' },
      });
      const username = positionals[0];
      if (!username || positionals.length > 1) throw new UsageError(USERS_USAGE);
      const subscription = oneOf(values.subscription, 'subscription', SUBSCRIPTIONS) ?? 'none';
      // Never a password on the command line (it would show in `ps` and shell history):
      // read it from stdin, or generate one and print it once.
      const generated = values['password-stdin'] ? undefined : randomBytes(15).toString('base64url');
      const password = generated ?? (await input()).replace(/\r?\n$/, ''); // `echo` adds a newline
      const errors = accountRuleErrors(username, password);
      if (errors.length > 0) throw new UsageError(errors.map((e) => `${e.name} ${e.reason}`).join('; '));
      if (await repo.usernameTaken(username)) throw new UsageError(`username '${username}' is taken`);
      const account = await repo.create({
        username,
        passwordHash: await hashPassword(password),
        now: Date.now(),
      });
      await repo.update(account.id, { subscription, is_partner: values.partner ? 1 : 0 });
      const tier = tierForOwner({ subscription, is_partner: values.partner ? 1 : 0 });
      if (values.json) {
        console.log(
          JSON.stringify({
            id: account.id,
            username,
            subscription,
            partner: Boolean(values.partner),
            tier,
            ...(generated ? { password: generated } : {}),
          }),
        );
      } else {
        console.log(`Created account ${account.id} '${username}' (${subscription}, tier ${tier}).`);
        if (generated) console.log(`Password (shown once): ${generated}`);
      }
      return;
    }
    case 'set-subscription': {
      const { positionals } = parse(rest, {});
      const userId = id(positionals[0]);
      const subscription = oneOf(positionals[1], 'subscription', SUBSCRIPTIONS);
      if (!subscription) throw new UsageError(USERS_USAGE);
      if (!(await repo.update(userId, { subscription })))
        throw new UsageError(`no account with id ${userId}`);
      console.log(`Account ${userId}: subscription ${subscription}; its keys follow on their next request.`);
      return;
    }
    case 'set-partner': {
      const { positionals } = parse(rest, {});
      const userId = id(positionals[0]);
      const flag = oneOf(positionals[1], 'partner', ['true', 'false'] as const);
      if (!flag) throw new UsageError(USERS_USAGE);
      if (!(await repo.update(userId, { is_partner: flag === 'true' ? 1 : 0 }))) {
        throw new UsageError(`no account with id ${userId}`);
      }
      console.log(`Account ${userId}: partner ${flag}; its keys follow on their next request.`);
      return;
    }
    default:
      throw new UsageError(USERS_USAGE);
  }
}
