// The Rust client's generated half: the typed client and its types by progenitor (pinned in
// clients/rust/generator/Cargo.toml, run from that crate, so the output is reproducible) and the
// tables and event enum its hand-written layer reads.
//
// progenitor reads OpenAPI 3.0 (the `openapiv3` crate) and only `application/json` bodies, so it
// is given the 3.0 form of the document (openapi30.ts) with problem answers read as JSON.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { pascal } from '../../src/http/docs/named-schemas.js';
import { constantCase as constant, generatedHeader, inTempDir } from './emit.js';
import type { ClientGenerator } from './generate.js';
import { openapi30 } from './openapi30.js';
import type { DocumentTables } from './tables.js';

const run = promisify(execFile);
// not generate.ts's CLIENTS_DIR: that module imports this one
const CRATE_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../clients/rust');
const header = (what: string) => generatedHeader(what, 'rust');

const rs = (value: string) => JSON.stringify(value);

/** `createEconomyTransfer` -> `create_economy_transfer`: the operation id progenitor's methods carry. */
const snake = (id: string) =>
  id
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toLowerCase();

/** The operation ids (as progenitor writes them) of the operations that take an `Idempotency-Key`. */
function idempotentOperationIds({ idempotency, operationIds }: DocumentTables, api: string): string[] {
  return idempotency.map((operation) => {
    const id = snake(operationIds[operation] ?? '');
    if (!api.includes(`operation_id: ${rs(id)},`))
      throw new Error(`api.rs has no operation ${id} (${operation})`);
    return id;
  });
}

function metadataSource(tables: DocumentTables, api: string): string {
  const { codes, idempotency, paging, webhookTypes } = tables;
  const mode = { offset: 'Offset', page: 'Page', cursor: 'Cursor' } as const;
  return [
    header('error codes, idempotency, paging, webhook event types'),
    '/// Every `code` a problem document can carry, as constants usable in `match` patterns:',
    '/// `Some(codes::USER_NOT_FOUND) => …`.',
    'pub mod codes {',
    ...codes.map((code) => `    pub const ${constant(code)}: &str = ${rs(code)};`),
    '}',
    '',
    '/// Operations (`METHOD /path`) that take an `Idempotency-Key`: the client sends one on each call.',
    'pub const IDEMPOTENT_OPERATIONS: &[&str] = &[',
    ...idempotency.map((op) => `    ${rs(op)},`),
    '];',
    '',
    '/// The same operations by the id the generated client gives them.',
    'pub(crate) const IDEMPOTENT_OPERATION_IDS: &[&str] = &[',
    ...idempotentOperationIds(tables, api).map((id) => `    ${rs(id)},`),
    '];',
    '',
    '/// How a list pages: `Offset` (limit/offset), `Page` (page/per_page, `{data, meta}`), `Cursor` (after/limit).',
    'pub(crate) fn paging_of(operation: &str) -> Option<crate::paging::Paging> {',
    '    use crate::paging::Paging;',
    '    match operation {',
    ...Object.entries(paging).map(([op, m]) => `        ${rs(op)} => Some(Paging::${mode[m]}),`),
    '        _ => None,',
    '    }',
    '}',
    '',
    '/// The event types the service sends to webhooks (the document’s `webhooks` section).',
    'pub const WEBHOOK_EVENT_TYPES: &[&str] = &[',
    ...webhookTypes.map((type) => `    ${rs(type)},`),
    '];',
    '',
  ].join('\n');
}

/** The events as one enum of the types progenitor wrote (`HubEvent::EconomyTransferCreated(…)`). */
function eventsSource(tables: DocumentTables, api: string): string {
  const events = tables.events.map(([type, component]) => {
    if (!api.includes(`pub struct ${component} {`))
      throw new Error(`api.rs has no struct ${component} for ${type}`);
    return { type, component, variant: pascal(type) };
  });
  return [
    header('the events as one enum'),
    'use super::api::types;',
    '',
    '/// One event of the hub (a webhook delivery, the stream, the pull route), typed by its `type`.',
    '/// An event type this version does not know yet is `Other` with its JSON.',
    '#[derive(Clone, Debug)]',
    '#[non_exhaustive]',
    'pub enum HubEvent {',
    ...events.flatMap((e) => [`    /// \`${e.type}\``, `    ${e.variant}(Box<types::${e.component}>),`]),
    '    /// A type this version does not know',
    '    Other(serde_json::Value),',
    '}',
    '',
    'impl HubEvent {',
    '    /// The event of its `type`; an error when the JSON is not what that type’s schema says.',
    '    pub fn from_value(value: serde_json::Value) -> Result<Self, serde_json::Error> {',
    '        let kind = value.get("type").and_then(|t| t.as_str()).unwrap_or_default();',
    '        Ok(match kind {',
    ...events.map(
      (e) => `            ${rs(e.type)} => Self::${e.variant}(Box::new(serde_json::from_value(value)?)),`,
    ),
    '            _ => Self::Other(value),',
    '        })',
    '    }',
    '',
    '    /// The event type (`economy.transfer.created`).',
    '    pub fn event_type(&self) -> &str {',
    '        match self {',
    ...events.map((e) => `            Self::${e.variant}(_) => ${rs(e.type)},`),
    '            Self::Other(value) => value.get("type").and_then(|t| t.as_str()).unwrap_or_default(),',
    '        }',
    '    }',
    '',
    '    /// The event id (`evt_…`, sortable).',
    '    pub fn id(&self) -> &str {',
    '        match self {',
    ...events.map((e) => `            Self::${e.variant}(event) => event.id.as_str(),`),
    '            Self::Other(value) => value.get("id").and_then(|t| t.as_str()).unwrap_or_default(),',
    '        }',
    '    }',
    '}',
    '',
  ].join('\n');
}

export const rustGenerator: ClientGenerator = {
  language: 'rust',
  generatedDir: 'rust/src/generated',
  async generate(doc, tables, outDir) {
    const api = join(outDir, 'api.rs');
    await inTempDir('rust', async (temp) => {
      const input = join(temp, 'openapi-3.0.json');
      await writeFile(input, JSON.stringify(openapi30(doc, { problemAsJson: true })));
      const { stderr } = await run(
        'cargo',
        ['run', '--quiet', '--locked', '-p', 'gaming-hub-client-generator', '--', input, api],
        { cwd: CRATE_DIR, env: toolchainEnv(), maxBuffer: 64 * 1024 * 1024 },
      );
      if (stderr.trim()) process.stderr.write(stderr);
    });
    const code = await readFile(api, 'utf8');
    await writeFile(api, `${header(`progenitor ${await progenitorVersion()}`)}${code}`);
    await writeFile(join(outDir, 'metadata.rs'), metadataSource(tables, code));
    await writeFile(join(outDir, 'events.rs'), eventsSource(tables, code));
    await writeFile(
      join(outDir, 'mod.rs'),
      [
        header('the generated modules'),
        '#[allow(clippy::all, clippy::pedantic, unused, missing_docs)]',
        'pub mod api;',
        'pub mod events;',
        'pub mod metadata;',
        '',
      ].join('\n'),
    );
  },
};

/**
 * The environment without libfaketime: CI's second run sets the clock a year ahead with it
 * (LD_PRELOAD), and rustc hangs under it. Generating code does not read the date.
 */
function toolchainEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.LD_PRELOAD;
  delete env.FAKETIME;
  return env;
}

/** The progenitor the generator crate pins (its Cargo.toml), named in the output's header. */
async function progenitorVersion(): Promise<string> {
  const manifest = await readFile(join(CRATE_DIR, 'generator/Cargo.toml'), 'utf8');
  const pinned = /^progenitor-impl = "=([^"]+)"/m.exec(manifest)?.[1];
  if (!pinned) throw new Error('clients/rust/generator/Cargo.toml pins no progenitor-impl version');
  return pinned;
}
