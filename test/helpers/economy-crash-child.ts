/**
 * A process that sends coins between users as fast as it can until it is killed (SIGKILL), for
 * the crash test: eight transfers in flight at any moment, one line on stdout per committed one.
 * DATABASE_URL and USERS (a JSON array of user ids) come from the environment.
 */
import { connect } from '../../src/db/connect.js';
import { ProblemError } from '../../src/http/problem.js';
import { economyRepo } from '../../src/modules/economy/repo.js';
import { economyService } from '../../src/modules/economy/service.js';

// stdin is the test's pipe: it ends when the test process dies, however it dies (even SIGKILL,
// which leaves it no chance to kill this process); then stop instead of sending on as an orphan
process.stdin.on('end', () => process.exit(3)).resume();

const url = process.env.DATABASE_URL ?? '';
const users = JSON.parse(process.env.USERS ?? '[]') as number[];
const db = connect(url);
const economy = economyService(economyRepo(db), Date.now);
let sent = 0;

async function sender(): Promise<never> {
  for (;;) {
    const n = sent++;
    // The pair depends on n alone: every user sends and receives in turn whichever lane runs it.
    // (With the lane in it, lanes running in lockstep made only every other user a sender, until
    // all coins sat with the others and every transfer was refused.)
    const from = users[n % users.length] ?? 0;
    const to = users[(n + 1 + (Math.floor(n / users.length) % (users.length - 1))) % users.length] ?? 0;
    try {
      await economy.transfer(
        from,
        { to_user_id: to, amount: 1 + (n % 50) },
        { owner: 'crash', key: `c-${n}` },
      );
      process.stdout.write(`ok ${n}\n`);
    } catch (err) {
      if (!(err instanceof ProblemError)) throw err;
    }
  }
}

await Promise.all(Array.from({ length: 8 }, () => sender()));
