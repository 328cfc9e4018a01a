// The Python client's generated half: pydantic v2 models by datamodel-code-generator (pinned in
// clients/python/requirements-dev.txt, run from the package's venv, so the output is reproducible)
// and the tables its hand-written layer reads (error codes, idempotent operations, paging, events).
import { execFile } from 'node:child_process';
import { copyFile, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { constantCase as constant, generatedHeader, inTempDir } from './emit.js';
import type { ClientGenerator } from './generate.js';
import type { DocumentTables } from './tables.js';

const run = promisify(execFile);
// not generate.ts's CLIENTS_DIR: that module imports this one
const PACKAGE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../clients/python');
const header = (what: string) => generatedHeader(what, 'python');
const py = (value: unknown) => JSON.stringify(value);

function metadataSource({ codes, idempotency, paging, webhookTypes }: DocumentTables): string {
  return [
    header('error codes, idempotency, paging, webhook event types'),
    'from enum import StrEnum',
    'from typing import Final, Literal',
    '',
    '',
    'class ErrorCode(StrEnum):',
    '    """Every `code` a problem document can carry (`HubAPIError.code == ErrorCode.USER_NOT_FOUND`)."""',
    '',
    ...codes.map((code) => `    ${constant(code)} = ${py(code)}`),
    '',
    '',
    '# Operations (`METHOD /path`) that take an `Idempotency-Key`: the client sends one on each call.',
    'IDEMPOTENT_OPERATIONS: Final[frozenset[str]] = frozenset(',
    '    {',
    ...idempotency.map((op) => `        ${py(op)},`),
    '    }',
    ')',
    '',
    '# Lists and how they page: offset (limit/offset), page (page/per_page, `{data, meta}`), cursor (after/limit).',
    'PAGING: Final[dict[str, Literal["offset", "page", "cursor"]]] = {',
    ...Object.entries(paging).map(([op, mode]) => `    ${py(op)}: ${py(mode)},`),
    '}',
    '',
    '# The event types the service sends to webhooks (the document\u2019s `webhooks` section).',
    'WEBHOOK_EVENT_TYPES: Final[tuple[str, ...]] = (',
    ...webhookTypes.map((type) => `    ${py(type)},`),
    ')',
    '',
  ].join('\n');
}

/** The webhook events as one discriminated union of the models datamodel-code-generator wrote. */
function eventsSource({ events }: DocumentTables, models: string): string {
  // an event's model is the class of its body's component schema (`ClanMemberJoinedEvent`)
  const classes = events.map(([type, name]) => {
    if (!models.includes(`\nclass ${name}(`)) throw new Error(`models.py has no class ${name} for ${type}`);
    return [type, name] as const;
  });
  return [
    header('the webhook events as one union'),
    'from typing import Annotated, Final',
    '',
    'from pydantic import BaseModel, Field',
    '',
    'from .models import (',
    ...classes.map(([, name]) => `    ${name},`),
    ')',
    '',
    '# One event of any type: narrow it with `match event:` / `isinstance`, or on `event.type`.',
    'HubEvent = Annotated[',
    ...classes.map(([, name], i) => `    ${i === 0 ? '' : '| '}${name}`),
    '    , Field(discriminator="type"),',
    ']',
    '',
    '# The model of each event type.',
    'EVENT_MODELS: Final[dict[str, type[BaseModel]]] = {',
    ...classes.map(([type, name]) => `    ${py(type)}: ${name},`),
    '}',
    '',
  ].join('\n');
}

export const pythonGenerator: ClientGenerator = {
  language: 'python',
  generatedDir: 'python/src/gaming_hub/_generated',
  async generate(doc, tables, outDir) {
    // the input's file name is printed in the output's header: the same name on every run
    await inTempDir('python', async (temp) => {
      const input = join(temp, 'openapi.json');
      await writeFile(input, JSON.stringify(doc));
      const { stdout } = await run(
        'python3',
        [
          join(PACKAGE_DIR, 'scripts/run.py'),
          '-m',
          'datamodel_code_generator',
          '--input',
          input,
          '--input-file-type',
          'openapi',
          // the paths' inline answers and the webhooks' events are models too, not only components
          '--openapi-scopes',
          'schemas',
          'paths',
          'webhooks',
          '--output-model-type',
          'pydantic_v2.BaseModel',
          '--target-python-version',
          '3.11',
          '--disable-timestamp',
          '--formatters',
          'ruff-format',
          '--use-double-quotes',
          '--use-annotated',
          '--use-union-operator',
          '--use-standard-collections',
          // written outside the package, then copied: the formatter would read the package's ruff
          // settings in place and not in the drift test's temp dir
          '--output',
          join(temp, 'models.py'),
        ],
        { cwd: PACKAGE_DIR, maxBuffer: 64 * 1024 * 1024 },
      );
      if (stdout.trim()) process.stderr.write(stdout);
      await copyFile(join(temp, 'models.py'), join(outDir, 'models.py'));
    });
    await writeFile(join(outDir, 'metadata.py'), metadataSource(tables));
    const models = await readFile(join(outDir, 'models.py'), 'utf8');
    await writeFile(join(outDir, 'events.py'), eventsSource(tables, models));
    await writeFile(join(outDir, '__init__.py'), header('the package of generated modules'));
  },
};
