// What every language's generator does the same way: the header of a generated file, the
// constant-case name of a value, the temp folder a generator tool reads its input from.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The first line of a generated file. Go's says `Code generated … DO NOT EDIT.` because Go tools
 * (gofmt, linters, GitHub's diff view) know a generated file by that exact line.
 */
export function generatedHeader(what: string, language: 'go' | 'python' | 'rust' | 'typescript'): string {
  const from = `by \`npm run clients:generate\` from clients/openapi.json (${what})`;
  if (language === 'go') return `// Code generated ${from}. DO NOT EDIT.\n`;
  return `${language === 'python' ? '#' : '//'} Generated ${from}. Do not edit.\n`;
}

/** `user_not_found` -> `USER_NOT_FOUND`, `economy.transfer.created` -> `ECONOMY_TRANSFER_CREATED`. */
export const constantCase = (value: string): string => value.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase();

/** Runs `work` in a new temp folder (`hub-<language>-…`), removed afterwards whatever happens. */
export async function inTempDir<T>(language: string, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), `hub-${language}-`));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
