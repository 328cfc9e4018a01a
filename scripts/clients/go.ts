// The Go client's generated half: types and a typed client by oapi-codegen (the version pinned
// below, run with `go run module@version`, so the output is reproducible), and the tables its
// hand-written layer reads (error codes, idempotent operations, paging, webhook event types).
// oapi-codegen reads OpenAPI 3.0 only: it is given the 3.0 form of the document (openapi30.ts).
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { eventSchemaName, pascal } from '../../src/http/docs/named-schemas.js';
import { generatedHeader, inTempDir } from './emit.js';
import type { ClientGenerator } from './generate.js';
import { openapi30 } from './openapi30.js';
import type { DocumentTables } from './tables.js';

const run = promisify(execFile);
export const OAPI_CODEGEN = 'github.com/oapi-codegen/oapi-codegen/v2/cmd/oapi-codegen@v2.8.2';
// not generate.ts's CLIENTS_DIR: that module imports this one
const MODULE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../clients/go');
const header = (what: string) => generatedHeader(what, 'go');
const go = (value: string) => JSON.stringify(value);

function metadataSource({ codes, idempotency, paging, events }: DocumentTables): string {
  return [
    header('error codes, idempotency, paging, webhook event types'),
    'package api',
    '',
    '// ErrorCode is the machine-readable `code` of a problem document: compare it with the Code* constants.',
    'type ErrorCode string',
    '',
    '// Every code a problem document can carry.',
    'const (',
    ...codes.map((code) => `\tCode${pascal(code)} ErrorCode = ${go(code)}`),
    ')',
    '',
    '// IdempotentOperations are the operations (`METHOD /path`) that take an Idempotency-Key: the client sends one on each call.',
    '// A function, not a variable: the tables are the document\u2019s, no caller can change them.',
    'func IdempotentOperations() []string {',
    '\treturn []string{',
    ...idempotency.map((op) => `\t\t${go(op)},`),
    '\t}',
    '}',
    '',
    '// Paging tells how the operation (`METHOD /path`) pages: "offset" (limit/offset), "page" (page/per_page, {data, meta}),',
    '// "cursor" (after/limit), or "" for an operation that does not page.',
    'func Paging(operation string) string {',
    '\tswitch operation {',
    ...Object.entries(paging).flatMap(([op, mode]) => [`\tcase ${go(op)}:`, `\t\treturn ${go(mode)}`]),
    '\t}',
    '\treturn ""',
    '}',
    '',
    '// Event is one event the hub sends to webhooks and on the stream: a pointer to the generated type of its `type`',
    '// (switch on it: `case *api.EconomyTransferCreatedEvent:`).',
    'type Event interface {',
    '\tEventType() string',
    '}',
    '',
    // each event also has a name of its own type's (`economy.transfer.created` ->
    // EconomyTransferCreatedEvent), whatever the document names its schema
    ...events
      .filter(([type, schema]) => eventSchemaName(type) !== pascal(schema))
      .flatMap(([type, schema]) => [
        `// ${eventSchemaName(type)} is the ${go(type)} event.`,
        `type ${eventSchemaName(type)} = ${pascal(schema)}`,
        '',
      ]),
    ...events.flatMap(([type, schema]) => [
      `// EventType is ${go(type)}.`,
      `func (*${pascal(schema)}) EventType() string { return ${go(type)} }`,
      '',
    ]),
    '// NewEvent is an empty event of the type named `eventType` (to unmarshal into), or false for a type this version does not know.',
    'func NewEvent(eventType string) (Event, bool) {',
    '\tswitch eventType {',
    ...events.flatMap(([type, schema]) => [`\tcase ${go(type)}:`, `\t\treturn new(${pascal(schema)}), true`]),
    '\t}',
    '\treturn nil, false',
    '}',
    '',
  ].join('\n');
}

const CONFIG = `package: api
generate:
  models: true
  client: true
output-options:
  skip-prune: true
`;

export const goGenerator: ClientGenerator = {
  language: 'go',
  generatedDir: 'go/api',
  async generate(doc, tables, outDir) {
    // the input's path is not printed in the output: any temp dir gives the same code
    await inTempDir('go', async (temp) => {
      await writeFile(join(temp, 'openapi.json'), JSON.stringify(openapi30(doc)));
      await writeFile(join(temp, 'config.yaml'), `${CONFIG}output: ${join(outDir, 'api.gen.go')}\n`);
      await run(
        'go',
        ['run', OAPI_CODEGEN, '-config', join(temp, 'config.yaml'), join(temp, 'openapi.json')],
        { cwd: MODULE_DIR, maxBuffer: 64 * 1024 * 1024 },
      );
    });
    await writeFile(join(outDir, 'metadata.gen.go'), metadataSource(tables));
    await run('gofmt', ['-w', outDir], { cwd: MODULE_DIR });
  },
};
