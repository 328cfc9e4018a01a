// The reference plugin against the hub of `npm run test:plugins`: the simulated game plays a match
// through the SDK only; exits 0 when every event reached the hub once and its kills are stored.
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { HubPlugin, type ServerStatus } from '@gaming-hub/plugin-sdk';
import { control, loadFixture } from '../scenarios/fixture.js';
import { SimulatedGame } from './game.js';

const { fixture } = loadFixture();
const server = fixture.servers.reference;
if (!server) throw new Error('the fixture has no reference server');
const reasons: string[] = [];
const hub: HubPlugin = new HubPlugin({
  hubUrl: fixture.hub_url,
  token: server.token,
  spoolDir: mkdtempSync(join(fixture.work_dir, 'reference-')),
  name: 'reference/1',
  status: (): ServerStatus => game.status(),
  onError: (err) => reasons.push(err.message),
});
const game: SimulatedGame = new SimulatedGame(hub);
await hub.start();

const base = 76561198000030000n;
['Rusty', 'Naked', 'Builder', 'Raider'].forEach((name, i) =>
  game.join({ name, steam_id: String(base + BigInt(i)) }, i % 2 ? 'team2' : 'team1'),
);
for (let round = 0; round < 3; round++) {
  game.startRound();
  game.fight('Rusty', 'Naked', 'rifle.ak', round === 0);
  game.fight('Raider', 'Builder', 'bow.hunting');
  game.endRound(round % 2 ? 'team2' : 'team1');
}
game.endMatch();
assert.equal(await hub.flush(), true, 'every batch reached the hub');
await hub.close();
const c = hub.counters;
console.error(`reference plugin: ${JSON.stringify(c)}`);
assert.equal(c.sent + c.rejected, 4 + 3 * 4 + 1, 'every event was settled once');
assert.equal(await control(fixture).kills(server.id), 6, 'the 6 kills are stored');
// chat, rounds, map changes and player objects in sessions are the hub's new kinds (plugin-events):
// until they land the hub refuses them one by one, and this says so rather than failing
if (c.rejected > 0)
  console.error(`reference plugin: ${c.rejected} events refused by this hub (kinds not landed yet)`);
