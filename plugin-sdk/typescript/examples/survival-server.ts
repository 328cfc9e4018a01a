// A runnable reference plugin: a simulated game server that reports to a hub through the SDK only.
//   node --import tsx examples/survival-server.ts --hub http://127.0.0.1:3000 --token <ingest token>
// (add --spool <dir>, --matches <n>). Players join, chat, fight, a match ends; `say`, `kick` and
// `status` issued through the hub's /v1 command route reach it while it runs (until Ctrl-C).
import { parseArgs } from 'node:util';
import { HubPlugin, type ServerStatus } from '@gaming-hub/plugin-sdk';
import { SimulatedGame } from './game.js';

const { values } = parseArgs({
  options: {
    hub: { type: 'string', default: 'http://127.0.0.1:3000' },
    token: { type: 'string', default: process.env.HUB_SERVER_TOKEN ?? '' },
    spool: { type: 'string', default: './hub-spool' },
    matches: { type: 'string', default: '1' },
  },
});
if (!values.token) throw new Error('pass --token <the ingest token `hub servers add` printed>');

const hub: HubPlugin = new HubPlugin({
  hubUrl: values.hub,
  token: values.token,
  spoolDir: values.spool,
  name: 'survival-example/1.0',
  // read at each heartbeat (the game exists by then)
  status: (): ServerStatus => game.status(),
  onRevoked: () => console.error('the hub refused the token: stopped'),
});
const game: SimulatedGame = new SimulatedGame(hub);
await hub.start();

game.seatPlayers(76561198000020000n);
for (let m = 0; m < Number(values.matches); m++) game.playMatch();
await hub.flush();
console.log(JSON.stringify(hub.counters));
process.on('SIGINT', () => void hub.close().then(() => process.exit(0)));
