#!/usr/bin/env node
// `npx @gaming-hub/bot <folder>` (create-gaming-hub-bot): a working bot project in one step.
import { cpSync, existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** Copies the starter template into `target` (which must be missing or empty); returns the files made. */
export function createProject(
  target: string,
  template = join(import.meta.dirname, '..', 'template'),
): string[] {
  if (existsSync(target) && readdirSync(target).length > 0)
    throw new Error(`${target} is not empty: choose a new folder`);
  cpSync(template, target, { recursive: true });
  return readdirSync(target).sort();
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename)) {
  const target = process.argv[2];
  if (!target) {
    process.stderr.write('usage: create-gaming-hub-bot <folder>\n');
    process.exit(2);
  }
  try {
    const files = createProject(resolve(target));
    process.stdout.write(
      `Made a bot in ${target}: ${files.join(', ')}\nNext: cd ${target} && npm install && npm test\n`,
    );
  } catch (error) {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
}
