import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { generateSecretKey, parseSecretKey, sealedKeyId, type SecretKey } from '../src/engines/secret-box.js';
import { openRconPassword } from '../src/modules/servers/commands/rcon-password.js';
import { buildIfStale, hub } from './helpers/cli.js';
import { databaseUrlOf, openTestDb, testDialects, type TestDb } from './helpers/db.js';
import { factories } from './helpers/factories.js';

/**
 * The operator's RCON commands as real processes: `hub servers add --owner --rcon-password`,
 * `set-rcon`, `grant`, `revoke`; the password is stored sealed under HUB_SECRET_KEY (on SQLite
 * without it, under a key the CLI keeps in the data folder), and `hub serve` refuses to start with
 * a key that cannot open what is stored.
 */
const PASSWORD = 'correct horse battery staple';

for (const dialect of testDialects()) {
  describe(`hub servers RCON settings (${dialect})`, () => {
    let testDb: TestDb;
    let url: string;
    let owner: number;
    let friend: number;
    /** PostgreSQL needs the key given; SQLite makes one in the data folder */
    let env: Record<string, string>;
    let key: () => SecretKey;
    const run = (...args: string[]) => hub(url, ['servers', ...args], env);

    before(async () => {
      buildIfStale();
      testDb = await openTestDb(dialect);
      url = databaseUrlOf(testDb);
      const made = factories(testDb.db);
      owner = (await made.makeUser()).id;
      friend = (await made.makeUser()).id;
      if (dialect === 'postgres') {
        const { key: given, text } = generateSecretKey();
        env = { HUB_SECRET_KEY: text };
        key = () => given;
      } else {
        env = {};
        key = () =>
          parseSecretKey(readFileSync(join(dirname(url.slice('sqlite:'.length)), 'secret-key'), 'utf8'));
      }
    });
    after(() => testDb.drop());

    const stored = (id: number) =>
      testDb.db.kysely
        .selectFrom('game_servers')
        .select(['owner_user_id', 'rcon_port', 'rcon_password'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();

    it('prints its help, naming every RCON subcommand, without a database', () => {
      const help = hub('sqlite:/nonexistent/dir/hub.sqlite', ['servers', '--help']);
      assert.equal(help.status, 0, help.stderr);
      for (const words of [
        '--owner USER_ID',
        '--rcon-password PW',
        'set-rcon ID --password PW',
        'grant ID USER_ID',
        'revoke ID USER_ID',
        'HUB_SECRET_KEY',
      ])
        assert.ok(help.stdout.includes(words), words);
    });

    it('registers a server with an owner and an RCON password stored sealed, never in clear', async () => {
      const added = run(
        'add',
        ...['--name', 'EU CS2', '--game', 'cs2', '--ip', '127.0.0.1', '--port', '27015'],
        ...['--owner', String(owner), '--rcon-password', PASSWORD, '--rcon-port', '27020', '--json'],
      );
      assert.equal(added.status, 0, added.stderr);
      const body = JSON.parse(added.stdout) as {
        id: number;
        owner_user_id: number;
        rcon: boolean;
        rcon_port: number;
      };
      assert.deepEqual([body.owner_user_id, body.rcon, body.rcon_port], [owner, true, 27020]);
      assert.ok(!added.stdout.includes(PASSWORD));
      const row = await stored(body.id);
      assert.equal(row.owner_user_id, owner);
      assert.equal(row.rcon_port, 27020);
      assert.ok(row.rcon_password);
      assert.ok(!row.rcon_password.includes(PASSWORD), 'the column holds no plaintext');
      assert.ok(!row.rcon_password.includes(Buffer.from(PASSWORD).toString('base64')));
      assert.equal(sealedKeyId(row.rcon_password), key().id);
      assert.equal(openRconPassword(key(), row.rcon_password), PASSWORD);

      const list = run('list', '--json');
      assert.equal(list.status, 0, list.stderr);
      assert.ok(!list.stdout.includes(PASSWORD) && !list.stdout.includes(row.rcon_password));
      const listed = (JSON.parse(list.stdout) as { id: number; rcon: string; owner_user_id: number }[]).find(
        (s) => s.id === body.id,
      );
      assert.deepEqual([listed?.rcon, listed?.owner_user_id], ['port 27020', owner]);
    });

    it('refuses an unknown owner, a bad password and a port without a password, registering nothing', async () => {
      const before = (await testDb.db.kysely.selectFrom('game_servers').select('id').execute()).length;
      const base = ['add', '--name', 'X', '--game', 'cs2', '--ip', '127.0.0.1', '--port', '27015'];
      const unknown = run(...base, '--owner', '999999', '--rcon-password', 'pw');
      assert.equal(unknown.status, 2);
      assert.match(unknown.stderr, /no user with id 999999/);
      const multiline = run(...base, '--owner', String(owner), '--rcon-password', 'a\nb');
      assert.equal(multiline.status, 2);
      assert.match(multiline.stderr, /printable/);
      assert.ok(!multiline.stderr.includes('a\nb'));
      assert.equal(run(...base, '--rcon-port', '27020').status, 2);
      assert.equal((await testDb.db.kysely.selectFrom('game_servers').select('id').execute()).length, before);
    });

    it('changes the password and port with set-rcon; grants and revokes operators', async () => {
      const added = run(
        'add',
        ...['--name', 'Rust', '--game', 'rust', '--ip', '127.0.0.1', '--port', '28015', '--json'],
      );
      const { id } = JSON.parse(added.stdout) as { id: number };
      assert.equal((await stored(id)).rcon_password, null);
      const set = run(
        'set-rcon',
        String(id),
        '--password',
        'n3w-pass',
        '--port',
        '28016',
        '--owner',
        String(owner),
      );
      assert.equal(set.status, 0, set.stderr);
      assert.ok(!set.stdout.includes('n3w-pass'));
      const row = await stored(id);
      assert.deepEqual([row.owner_user_id, row.rcon_port], [owner, 28016]);
      assert.equal(openRconPassword(key(), row.rcon_password ?? ''), 'n3w-pass');
      // the port falls back to the game port when not given again
      assert.equal(run('set-rcon', String(id), '--password', 'n3w-pass').status, 0);
      assert.equal((await stored(id)).rcon_port, null);
      assert.equal(run('set-rcon', '999999', '--password', 'x').status, 2);
      assert.equal(run('set-rcon', String(id)).status, 2);

      const operators = () =>
        testDb.db.kysely
          .selectFrom('server_operators')
          .select('user_id')
          .where('server_id', '=', id)
          .execute();
      const grant = run('grant', String(id), String(friend));
      assert.equal(grant.status, 0, grant.stderr);
      assert.match(run('grant', String(id), String(friend)).stdout, /already/);
      assert.deepEqual(await operators(), [{ user_id: friend }]);
      assert.equal(run('grant', String(id), '999999').status, 2);
      assert.equal(run('grant', '999999', String(friend)).status, 2);
      assert.equal(run('revoke', String(id), String(friend)).status, 0);
      assert.deepEqual(await operators(), []);
      assert.match(run('revoke', String(id), String(friend)).stdout, /nothing changed/);
    });

    it('does not start with a HUB_SECRET_KEY that cannot open the stored passwords, and says why', () => {
      const wrong = generateSecretKey();
      const served = hub(url, ['serve'], { HUB_SECRET_KEY: wrong.text });
      assert.equal(served.status, 1);
      assert.match(served.stderr, /HUB_SECRET_KEY is not the key the RCON passwords were encrypted with/);
      assert.ok(served.stderr.includes(`HUB_SECRET_KEY has key id ${wrong.key.id}`));
      assert.ok(!served.stderr.includes(wrong.text));
      const malformed = hub(url, ['serve'], { HUB_SECRET_KEY: 'not-a-key-at-all' });
      assert.equal(malformed.status, 1);
      assert.match(malformed.stderr, /HUB_SECRET_KEY must be/);
      assert.ok(!malformed.stderr.includes('not-a-key-at-all'));
    });
  });
}

describe(
  'hub servers RCON settings on PostgreSQL without HUB_SECRET_KEY',
  { skip: !process.env.TEST_DATABASE_URL },
  () => {
    it('refuses to store a password it could not read back, naming the setting', async () => {
      const testDb = await openTestDb('postgres');
      try {
        const run = hub(databaseUrlOf(testDb), [
          'servers',
          'add',
          ...[
            '--name',
            'X',
            '--game',
            'cs2',
            '--ip',
            '127.0.0.1',
            '--port',
            '27015',
            '--rcon-password',
            'pw',
          ],
        ]);
        assert.equal(run.status, 2);
        assert.match(run.stderr, /HUB_SECRET_KEY/);
      } finally {
        await testDb.drop();
      }
    });
  },
);
