/**
 * `npm run bench:clients-rust`: the Rust client against plain reqwest, same seeded `hub serve`,
 * same run (bench/clients-rust/src/main.rs measures both in one process, in alternating rounds).
 * Built in release mode into clients/rust/target (one target dir for everything Rust).
 *
 *   npm run bench:clients-rust [-- --requests N --rounds N]
 */
import { join } from 'node:path';
import { benchAgainstHub } from './lib/against-hub.js';

await benchAgainstHub('cargo', ['run', '--quiet', '--release', '--locked', '--'], {
  cwd: join(import.meta.dirname, 'clients-rust'),
  env: { CARGO_TARGET_DIR: join(import.meta.dirname, '../clients/rust/target') },
});
