// The README's example, type-checked by `tsc` (never run): a renamed option or method breaks the build.
import { HubPlugin, InvalidEventError } from '../src/index.js';

export async function readmeExample() {
  const hub = new HubPlugin({
    hubUrl: 'https://hub.example.com',
    token: process.env.HUB_SERVER_TOKEN ?? '',
    spoolDir: './hub-spool',
    name: 'my-plugin/1.0',
    status: () => ({ players: 12, max_players: 32, map: 'arena', version: '1.4.2' }),
    commands: {
      say: ({ args }) => `said: ${args}`,
    },
    onRevoked: () => console.error('the hub refused the token'),
  });
  await hub.start();
  const steve = { name: 'Steve', minecraft_uuid: '069a79f4-44e9-4726-a5be-fca90e38aaf5' };
  const alex = { name: 'Alex', steam_id: '76561198000000042' };
  hub.connect(steve);
  hub.chat(steve, 'hello!');
  hub.send({ type: 'kill', killer: steve, victim: alex, weapon: 'diamond_sword', distance: 2.5 });
  hub.command('kick', ({ args }) => {
    if (args === '') throw new Error('kick whom?');
    return `kicked ${args}`;
  });
  try {
    hub.chat(steve, '');
  } catch (error) {
    if (error instanceof InvalidEventError) console.log(error.field);
  }
  process.on('SIGTERM', () => void hub.close());
  console.log(hub.counters);
  await hub.link(steve, '7KQ-M3X');
  await hub.linkCode(steve);
}
