import type { Db } from '../db/connect.js';
import { MAX_GRANT } from '../engines/ledger.js';
import { economyRepo } from '../modules/economy/repo.js';
import { economyService } from '../modules/economy/service.js';
import { ProblemError } from '../http/problem.js';
import { intOption, parse, UsageError } from './args.js';

export const ECONOMY_USAGE = `hub economy grant USER_ID AMOUNT --reason TEXT [--json]   mint coins to a user
hub economy audit [--json]                 prove the ledger sound (exit 1 if not)`;

/** Thrown when the audit finds the ledger unsound: the CLI exits 1 after printing the report. */
export class AuditFailed extends Error {
  override name = 'AuditFailed';
}

/** Operator commands of the hub economy. */
export async function economyCommand(db: Db, argv: string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const economy = economyService(economyRepo(db), Date.now);
  switch (sub ?? '') {
    case 'grant': {
      const { values, positionals } = parse(rest, {
        reason: { type: 'string' },
        json: { type: 'boolean' },
      });
      if (positionals.length !== 2) throw new UsageError(ECONOMY_USAGE);
      const userId = intOption(positionals[0], 'USER_ID', 1, 2147483647);
      const amount = intOption(positionals[1], 'AMOUNT', 1, MAX_GRANT);
      const reason = values.reason?.trim();
      if (userId === undefined || amount === undefined) throw new UsageError(ECONOMY_USAGE);
      if (!reason || reason.length > 200) throw new UsageError('--reason is required: 1 to 200 characters');
      let granted;
      try {
        granted = await economy.grant(userId, amount, reason);
      } catch (err) {
        throw err instanceof ProblemError ? new UsageError(err.detail) : err;
      }
      if (!granted) throw new UsageError(`there is no user with id ${userId}`);
      if (values.json) {
        console.log(
          JSON.stringify({ transaction_id: granted.id, user_id: userId, amount, balance: granted.balance }),
        );
      } else {
        console.log(
          `Granted ${amount} coins to user ${userId} (transaction ${granted.id}); balance ${granted.balance}.`,
        );
      }
      return;
    }
    case 'audit': {
      const { values } = parse(rest, { json: { type: 'boolean' } });
      const report = await economy.audit();
      if (values.json) console.log(JSON.stringify(report));
      else {
        console.log(
          `${report.transactions} movements, ${report.entries} entries, ${report.accounts} accounts; sum of all entries ${report.sum}.`,
        );
        for (const id of report.unbalanced)
          console.log(`UNBALANCED movement ${id}: its entries do not sum to 0`);
        for (const m of report.mismatched)
          console.log(`MISMATCH account ${m.account_id}: balance ${m.balance}, entries sum to ${m.entries}`);
        for (const id of report.negative) console.log(`NEGATIVE account ${id}`);
        console.log(report.ok ? 'Ledger OK.' : 'Ledger NOT sound.');
      }
      if (!report.ok) throw new AuditFailed('the ledger is not sound');
      return;
    }
    default:
      throw new UsageError(ECONOMY_USAGE);
  }
}
