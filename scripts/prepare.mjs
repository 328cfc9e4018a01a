#!/usr/bin/env node
// npm's `prepare` hook: builds dist/ after `npm install` / `npm ci`.
//
// `npx hub …` in this checkout also runs it: npm installs the project into its npx cache as a link
// to this directory (npm_command=exec), which runs `prepare` again. Rebuilding there took 81 s on
// a newcomer's first `npx hub`, and interrupting it left the npx cache half-installed, breaking
// every later `npx hub`. `npm install` has already built dist/, so under npx a present
// dist/cli.js is used as it is; `npm run build` rebuilds it on purpose.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';

if (process.env.npm_command === 'exec' && existsSync('dist/cli.js')) {
  console.error('prepare: dist/cli.js is built; npx runs it as it is (`npm run build` rebuilds)');
  process.exit(0);
}

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const result = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { stdio: 'inherit' });
process.exit(result.status ?? 1);
