// `npm run clients:generate`: dumps the document the service serves to clients/openapi.json and
// regenerates every client's generated code from it. A language is one entry of GENERATORS.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dumpOpenApi } from './dump-openapi.js';
import { generatorDocument } from './generator-document.js';
import { goGenerator } from './go.js';
import { pythonGenerator } from './python.js';
import { rustGenerator } from './rust.js';
import { documentTables, type DocumentTables } from './tables.js';
import { typescriptGenerator } from './typescript.js';

/** The document as generators read it (see generator-document.ts). */
export type GeneratorDocument = Record<string, unknown>;

export interface ClientGenerator {
  language: string;
  /** the folder, relative to clients/, that the generator owns entirely (emptied before each run) */
  generatedDir: string;
  /**
   * writes the generated code for `doc` into `outDir` (which is `generatedDir` or a temp copy of
   * it); `tables` are the document's tables (tables.ts), built once for every language to print
   */
  generate(doc: GeneratorDocument, tables: DocumentTables, outDir: string): Promise<void>;
}

/** One step per language; the drift test checks every one. */
export const GENERATORS: readonly ClientGenerator[] = [
  typescriptGenerator,
  pythonGenerator,
  goGenerator,
  rustGenerator,
];

export const CLIENTS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../../clients');
export const DOCUMENT_FILE = join(CLIENTS_DIR, 'openapi.json');

/** Regenerates every language from `documentText` into `clientsDir/<generatedDir>`. */
export async function generateClients(documentText: string, clientsDir: string): Promise<void> {
  const doc = generatorDocument(JSON.parse(documentText) as Record<string, unknown>);
  const tables = documentTables(doc);
  for (const generator of GENERATORS) {
    const outDir = join(clientsDir, generator.generatedDir);
    await rm(outDir, { recursive: true, force: true });
    await mkdir(outDir, { recursive: true });
    await generator.generate(doc, tables, outDir);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = await dumpOpenApi();
  const before = await readFile(DOCUMENT_FILE, 'utf8').catch(() => '');
  await writeFile(DOCUMENT_FILE, text);
  await generateClients(text, CLIENTS_DIR);
  console.log(
    `clients/openapi.json ${before === text ? 'unchanged' : 'updated'}; regenerated ${GENERATORS.map((g) => g.language).join(', ')}`,
  );
}
