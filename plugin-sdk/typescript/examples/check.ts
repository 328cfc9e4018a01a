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

game.seatPlayers(76561198000030000n);
game.playMatch();
game.changeMap('arena2');
assert.equal(await hub.flush(), true, 'every batch reached the hub');
await hub.close();
const c = hub.counters;
console.error(`reference plugin: ${JSON.stringify(c)}`);
assert.equal(c.rejected, 0, `the hub refused none of the game's events: ${reasons.join('; ')}`);
assert.equal(
  c.sent,
  4 + 1 + 3 * 4 + 1 + 1,
  'every event (4 joins, a chat, 3 rounds of 4, the match, the map change) was stored once',
);
assert.equal(await control(fixture).kills(server.id), 6, 'the 6 kills are stored');
