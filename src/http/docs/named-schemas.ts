import { isNode, type JsonNode as Node } from './json-node.js';
import type { OpenApiDocument, SchemaObject } from './openapi-types.js';

/**
 * Every request body and answer of the document as a named component schema (DESIGN.md, "Client
 * libraries": generators give a named type only to a named schema; an inline one becomes
 * `Data7` or `V1ClansIdGetResponse`). A route declares its schemas inline, where they are read
 * with the handler; here each object schema of a body or answer (JSON, or an OAuth form) moves to
 * `components.schemas` under a name made from the operation id, which is stable by rule
 * (docs/development.md, "Operation ids"):
 *
 * - request body: `<OperationId>Request` (`v1_clans_create` -> `V1ClansCreateRequest`)
 * - 2xx answer: `<OperationId>Result`, or `<OperationId>Result<status>` when an operation
 *   answers two 2xx statuses with a body (not `...Response`: oapi-codegen names its own response
 *   wrapper `<OperationId>Response`, and Go would see the name twice)
 * - a webhook event (the document's `webhooks`): `<Type>Event` (`clan.member_joined` ->
 *   `ClanMemberJoinedEvent`)
 *
 * Text answers (`text/plain` metrics, the `text/event-stream` stream) are strings, not objects,
 * and stay where they are: a named string type would tell a generator nothing.
 */

/** `v1_clans_create` -> `V1ClansCreate`, `clan.member_joined` -> `ClanMemberJoined`: a type name. */
export const pascal = (words: string): string =>
  words
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

/** `clan.member_joined` -> `ClanMemberJoinedEvent`: the component schema of a webhook event's body. */
export const eventSchemaName = (type: string): string => `${pascal(type)}Event`;

/** The schemas that get a name: objects (and arrays of them), not strings or references. */
const isInlineStructure = (schema: unknown): schema is SchemaObject =>
  isNode(schema) && schema.$ref === undefined && (schema.type === 'object' || schema.type === 'array');

/** An object with fields of its own (not a free-form map, not a union). */
const isInlineObject = (schema: SchemaObject): boolean =>
  isNode(schema) && schema.$ref === undefined && schema.type === 'object' && isNode(schema.properties);

function name(doc: OpenApiDocument, wanted: string, schema: SchemaObject): { $ref: string } {
  const schemas = (doc.components.schemas ??= {});
  // two routes may not claim one name: that would hand one of them the other's type
  if (schemas[wanted] !== undefined) throw new Error(`component schema ${wanted} is already taken`);
  schemas[wanted] = schema;
  nameNested(doc, wanted, schema);
  return { $ref: `#/components/schemas/${wanted}` };
}

/**
 * The objects inside a named schema get names too (`V1ClansGetResult.data` ->
 * `V1ClansGetResultData`, an item of `V1ClansListResult.data` -> `V1ClansListResultDataItem`):
 * otherwise Go and Rust generators make them anonymous structs a caller cannot name.
 */
function nameNested(doc: OpenApiDocument, parent: string, schema: SchemaObject): void {
  if (schema.items && isInlineObject(schema.items)) schema.items = name(doc, `${parent}Item`, schema.items);
  const properties = schema.properties ?? {};
  for (const [field, property] of Object.entries(properties)) {
    const fieldName = `${parent}${pascal(field)}`;
    if (isInlineObject(property)) properties[field] = name(doc, fieldName, property);
    else if (property.type === 'array' && property.items && isInlineObject(property.items))
      property.items = name(doc, `${fieldName}Item`, property.items);
  }
}

function nameMedia(doc: OpenApiDocument, content: unknown, wanted: string): void {
  if (!isNode(content)) return;
  for (const media of Object.values(content)) {
    if (!isNode(media) || !isInlineStructure(media.schema)) continue;
    media.schema = name(doc, wanted, media.schema);
  }
}

function nameOperation(
  doc: OpenApiDocument,
  operation: Node,
  base: string,
  request = `${base}Request`,
): void {
  const body = operation.requestBody;
  if (isNode(body)) nameMedia(doc, body.content, request);
  const responses = isNode(operation.responses) ? operation.responses : {};
  const success = Object.entries(responses).filter(
    ([status, response]) => /^2/.test(status) && isNode(response) && isNode(response.content),
  );
  for (const [status, response] of success) {
    const suffix = success.length > 1 ? status : '';
    nameMedia(doc, (response as Node).content, `${base}Result${suffix}`);
  }
}

/** A copy of `doc` with its bodies and answers named; the route schemas (shared with the validators) are not touched. */
export function withNamedSchemas(original: OpenApiDocument): OpenApiDocument {
  const doc = structuredClone(original);
  for (const item of Object.values(doc.paths)) {
    for (const operation of Object.values(item)) {
      if (operation.operationId)
        nameOperation(doc, operation as unknown as Node, pascal(operation.operationId));
    }
  }
  for (const [type, item] of Object.entries(doc.webhooks ?? {})) {
    for (const operation of Object.values(item)) {
      if (isNode(operation)) nameOperation(doc, operation, pascal(type), eventSchemaName(type));
    }
  }
  return doc;
}
