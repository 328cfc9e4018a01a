import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { after, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { CODE_SAMPLE_LANGUAGES } from '../src/http/docs/code-samples/index.js';
import { createTestContext, json } from './helpers/context.js';

// The examples the interactive reference shows for every operation (`x-codeSamples`), compiled by
// each language's own checker against its client library: a renamed path, field or method of a
// library breaks this test, not a reader's copy-paste. A language is one checker here and one
// module in src/http/docs/code-samples/.

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, '..');
const dir = join(ROOT, 'test-artifacts', `code-samples-${process.pid}`);

interface Sample {
  operationId: string;
  lang: string;
  source: string;
}

const ctx = await createTestContext('sqlite');
const doc = json<{ paths: Record<string, Record<string, Record<string, unknown>>> }>(
  await ctx.inject({ method: 'GET', url: '/api-platform/v1/openapi.json' }),
);
after(async () => {
  await ctx.close();
  rmSync(dir, { recursive: true, force: true });
});

const operations = Object.values(doc.paths).flatMap((item) => Object.values(item));
const samples: Sample[] = operations.flatMap((op) =>
  ((op['x-codeSamples'] ?? []) as { lang: string; source: string }[]).map((s) => ({
    operationId: String(op.operationId),
    lang: s.lang,
    source: s.source,
  })),
);

/** Writes each sample to `<dir>/<lang>/<operation id>.<ext>` and returns that folder. */
function writeSamples(lang: string, ext: string, extra: Record<string, string> = {}): string {
  const folder = join(dir, lang);
  mkdirSync(folder, { recursive: true });
  for (const s of samples.filter((x) => x.lang === lang))
    writeFileSync(join(folder, `${s.operationId}.${ext}`), s.source);
  for (const [name, text] of Object.entries(extra)) writeFileSync(join(folder, name), text);
  return folder;
}

/**
 * The environment of a toolchain: CI's second run has the clock a year ahead through libfaketime
 * (LD_PRELOAD), under which rustc hangs; compiling does not read the date.
 */
function toolchainEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.LD_PRELOAD;
  delete env.FAKETIME;
  return env;
}

/** Runs a checker; its output is the failure message. */
async function check(command: string, args: string[], cwd: string, env = toolchainEnv()): Promise<void> {
  try {
    await run(command, args, { cwd, env, maxBuffer: 16 << 20, timeout: 600_000 });
  } catch (error) {
    const { stdout = '', stderr = '' } = error as { stdout?: string; stderr?: string };
    assert.fail(`${command} ${args.join(' ')}\n${stdout}${stderr}`);
  }
}

/** One checker per language of CODE_SAMPLE_LANGUAGES, named by its `lang`. */
const CHECKERS: Record<string, () => Promise<void>> = {
  // tsc with the client's own strict settings; the package name resolves to its source
  typescript: async () => {
    const folder = writeSamples('typescript', 'ts', {
      'package.json': JSON.stringify({ type: 'module' }),
      'tsconfig.json': JSON.stringify({
        extends: '../../../clients/typescript/tsconfig.json',
        compilerOptions: {
          noEmit: true,
          rootDir: '../../..',
          paths: { '@gaming-hub/client': ['../../../clients/typescript/src/index.ts'] },
        },
        include: ['*.ts'],
      }),
    });
    await check(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', folder], folder);
  },
  // mypy --strict in the client's venv (scripts/run.py creates it when missing)
  python: async () => {
    const folder = writeSamples('python', 'py');
    const pkg = join(ROOT, 'clients/python');
    await check(
      'python3',
      [join(pkg, 'scripts/run.py'), '--exec', 'mypy', '--strict', '--no-incremental', folder],
      pkg,
    );
  },
  // go vet over a temporary module: one `package main` folder per sample, the client by `replace`
  go: async () => {
    const folder = join(dir, 'go');
    mkdirSync(folder, { recursive: true });
    const client = join(ROOT, 'clients/go');
    const goMod = readFileSync(join(client, 'go.mod'), 'utf8');
    const version = /^go (\S+)/m.exec(goMod)?.[1] ?? '1.25';
    writeFileSync(
      join(folder, 'go.mod'),
      `module hubsamples\n\ngo ${version}\n\nrequire github.com/gaming-hub/gaming-hub-go v0.0.0\n\nreplace github.com/gaming-hub/gaming-hub-go => ${client}\n`,
    );
    copyFileSync(join(client, 'go.sum'), join(folder, 'go.sum'));
    for (const s of samples.filter((x) => x.lang === 'go')) {
      mkdirSync(join(folder, s.operationId), { recursive: true });
      writeFileSync(join(folder, s.operationId, 'main.go'), s.source);
    }
    // -mod=mod: the client's own requirements are added from the module cache (or the proxy once)
    await check('go', ['vet', './...'], folder, toolchainEnv({ GOFLAGS: '-mod=mod' }));
    await check('gofmt', ['-l', '-d', '.'], folder);
  },
  // cargo check of a temporary crate holding every sample as a module, built in the client's
  // target folder from its lock file, so its dependencies are compiled once
  rust: async () => {
    const folder = join(dir, 'rust');
    const crate = join(ROOT, 'clients/rust');
    mkdirSync(join(folder, 'src'), { recursive: true });
    writeFileSync(
      join(folder, 'Cargo.toml'),
      [
        '[package]',
        'name = "hub-code-samples"',
        'version = "0.0.0"',
        'edition = "2024"',
        'publish = false',
        '',
        '[dependencies]',
        `gaming-hub-client = { path = ${JSON.stringify(crate)} }`,
        'futures-util = { version = "0.3", default-features = false, features = ["std"] }',
        'serde_json = "1"',
        'tokio = { version = "1", features = ["macros", "rt-multi-thread"] }',
        '',
        '[workspace]',
        '',
      ].join('\n'),
    );
    copyFileSync(join(crate, 'Cargo.lock'), join(folder, 'Cargo.lock'));
    const rust = samples.filter((x) => x.lang === 'rust');
    for (const s of rust) writeFileSync(join(folder, 'src', `${s.operationId}.rs`), s.source);
    writeFileSync(
      join(folder, 'src/lib.rs'),
      `//! Every Rust sample of the reference, each a module holding its \`main\`.\n#![deny(warnings)]\n#![allow(dead_code)]\n${rust.map((s) => `mod ${s.operationId};`).join('\n')}\n`,
    );
    await check(
      'cargo',
      ['check', '--quiet'],
      folder,
      toolchainEnv({ CARGO_TARGET_DIR: join(crate, 'target') }),
    );
  },
};

describe('the code samples of the interactive reference', () => {
  it('every operation has one sample per language, and every language a checker', () => {
    const langs = CODE_SAMPLE_LANGUAGES.map((l) => l.lang);
    assert.ok(operations.length >= 70);
    for (const op of operations)
      assert.deepEqual(
        ((op['x-codeSamples'] ?? []) as { lang: string }[]).map((s) => s.lang),
        langs,
        String(op.operationId),
      );
    for (const lang of langs) assert.ok(CHECKERS[lang], `a checker for ${lang}`);
  });

  // CI's second pass (the clock a year ahead) skips the compilers, as it skips the client libraries'
  // own gates: the samples come from the OpenAPI document, which reads no date, and compiled in the first
  const skip = process.env.CLIENTS_SKIP_TESTS ? 'compiled in the first pass (CLIENTS_SKIP_TESTS)' : false;
  for (const { lang } of CODE_SAMPLE_LANGUAGES)
    it(`every ${lang} sample compiles against the ${lang} client`, { timeout: 600_000, skip }, async () => {
      await CHECKERS[lang]?.();
    });
});
