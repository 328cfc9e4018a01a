// The tables every client's hand-written layer reads (error codes, idempotent operations, paging,
// webhook events), built once from the document; each language's generator only prints them.
import { eventSchemaName } from '../../src/http/docs/named-schemas.js';
import type { GeneratorDocument } from './generate.js';

type Json = Record<string, unknown>;
interface Parameter {
  in: string;
  name: string;
  required?: boolean;
}
interface Operation {
  /** `METHOD /full/path` */
  key: string;
  operationId: string | undefined;
  parameters: Parameter[];
}
export type Paging = 'offset' | 'page' | 'cursor';

/** Every operation of the document, keyed `METHOD /full/path`. */
function operations(doc: GeneratorDocument): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Json>>))
    for (const [method, op] of Object.entries(item)) {
      if (typeof op !== 'object' || !('responses' in op)) continue;
      out.push({
        key: `${method.toUpperCase()} ${path}`,
        operationId: typeof op.operationId === 'string' ? op.operationId : undefined,
        parameters: (op.parameters ?? []) as Parameter[],
      });
    }
  return out;
}

/**
 * Each webhook event type with the component schema of its body: the one its `$ref` names, or
 * for an inline body the name openapi30.ts gives it (`economy.transfer.created` ->
 * `EconomyTransferCreatedEvent`, the rule of src/http/docs/named-schemas.ts).
 */
export function webhookEvents(doc: GeneratorDocument): [type: string, component: string][] {
  return Object.entries((doc.webhooks ?? {}) as Record<string, Json>).map(([type, item]) => {
    const schema = (
      item.post as { requestBody?: { content?: Record<string, { schema?: Json }> } } | undefined
    )?.requestBody?.content?.['application/json']?.schema;
    const ref = typeof schema?.$ref === 'string' ? schema.$ref : undefined;
    return [
      type,
      ref?.startsWith('#/components/schemas/') ? ref.slice(ref.lastIndexOf('/') + 1) : eventSchemaName(type),
    ];
  });
}

export type DocumentTables = ReturnType<typeof documentTables>;

/** The closed list of error codes, the operations' idempotency and paging, the webhook events. */
export function documentTables(doc: GeneratorDocument) {
  const problem = (doc.components as { schemas?: Record<string, Json> } | undefined)?.schemas?.Problem;
  const codes = (problem?.properties as Record<string, { enum?: string[] }> | undefined)?.code?.enum ?? [];
  if (codes.length === 0) throw new Error('the document lists no error codes (Problem.code enum)');
  const idempotency: string[] = [];
  /** the `operationId` of each idempotent operation (Rust's client looks them up by it) */
  const operationIds: Record<string, string | undefined> = {};
  const paging: Record<string, Paging> = {};
  for (const { key: operation, operationId, parameters } of operations(doc)) {
    const key = parameters.find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
    if (key) {
      idempotency.push(operation);
      operationIds[operation] = operationId;
    }
    const query = new Set(parameters.filter((p) => p.in === 'query').map((p) => p.name));
    if (query.has('limit') && query.has('offset')) paging[operation] = 'offset';
    else if (query.has('after') && query.has('limit')) paging[operation] = 'cursor';
    else if (query.has('page') && query.has('per_page')) paging[operation] = 'page';
  }
  const events = webhookEvents(doc);
  const webhookTypes = events.map(([type]) => type);
  return { codes, idempotency, operationIds, paging, webhookTypes, events };
}
