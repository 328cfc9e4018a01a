// The TypeScript client's generated half: types by openapi-typescript (pinned in the root
// package.json, so the output is reproducible) and the tables its hand-written layer reads.
import { mkdir, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { pascal } from '../../src/http/docs/named-schemas.js';
import { generatedHeader } from './emit.js';
import type { ClientGenerator } from './generate.js';
import type { DocumentTables } from './tables.js';

const generatorVersion = (): string =>
  (createRequire(import.meta.url)('openapi-typescript/package.json') as { version: string }).version;

const header = (what: string) => generatedHeader(what, 'typescript');

function metadataSource({ codes, idempotency, paging, webhookTypes }: DocumentTables): string {
  const lines = [
    header('error codes, idempotency, paging, webhook event types'),
    '/** Every `code` a problem document can carry, as named constants (`HubErrorCode.UserNotFound`). */',
    'export const HubErrorCode = {',
    ...codes.map((code) => `  ${pascal(code)}: ${JSON.stringify(code)},`),
    '} as const;',
    'export type HubErrorCode = (typeof HubErrorCode)[keyof typeof HubErrorCode];',
    '',
    '/** Operations (`METHOD /path`) that take an `Idempotency-Key`: the client sends one on each call. */',
    `export const IDEMPOTENT_OPERATIONS: ReadonlySet<string> = new Set(${JSON.stringify(idempotency, null, 2)});`,
    '',
    '/** Lists and how they page: `offset` (limit/offset), `page` (page/per_page, `{data, meta}`) or `cursor` (after/limit). */',
    `export const PAGING: Readonly<Record<string, 'offset' | 'page' | 'cursor'>> = ${JSON.stringify(paging, null, 2)};`,
    '',
    '/** The event types the service sends to webhooks (the document\u2019s `webhooks` section). */',
    `export const WEBHOOK_EVENT_TYPES = ${JSON.stringify(webhookTypes, null, 2)} as const;`,
    '',
  ];
  return lines.join('\n');
}

export const typescriptGenerator: ClientGenerator = {
  language: 'typescript',
  generatedDir: 'typescript/src/generated',
  async generate(doc, tables, outDir) {
    await mkdir(outDir, { recursive: true });
    const ast = await openapiTS(doc as unknown as OpenAPI3, { alphabetize: false });
    await writeFile(
      join(outDir, 'schema.ts'),
      `${header(`openapi-typescript ${generatorVersion()}`)}${astToString(ast)}`,
    );
    await writeFile(join(outDir, 'metadata.ts'), metadataSource(tables));
  },
};
