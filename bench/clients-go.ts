/**
 * `npm run bench:clients-go`: the Go client against plain net/http, same seeded `hub serve`, same
 * run (bench/clients-go/main.go measures both in one process, in alternating rounds).
 *
 *   npm run bench:clients-go [-- --requests N --rounds N]
 */
import { join } from 'node:path';
import { benchAgainstHub } from './lib/against-hub.js';

await benchAgainstHub('go', ['run', '.'], { cwd: join(import.meta.dirname, 'clients-go') });
