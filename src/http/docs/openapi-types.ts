/**
 * The parts of an OpenAPI 3.1 document the generator reads and writes. Narrower than the full
 * specification on purpose: @fastify/swagger produces inline objects (no `$ref` parameters or
 * responses), and everything added here is inline too, except headers shared through components.
 */

export interface SchemaObject {
  $ref?: string;
  type?: string | string[];
  format?: string;
  description?: string;
  properties?: Record<string, SchemaObject>;
  required?: string[];
  items?: SchemaObject;
  minItems?: number;
  anyOf?: SchemaObject[];
  oneOf?: SchemaObject[];
  allOf?: SchemaObject[];
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  example?: unknown;
  examples?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  [extension: `x-${string}`]: unknown;
}

export interface ExampleObject {
  summary?: string;
  value: unknown;
}

export interface MediaTypeObject {
  schema?: SchemaObject;
  example?: unknown;
  examples?: Record<string, ExampleObject>;
}

export interface HeaderObject {
  description: string;
  schema: SchemaObject;
  example?: unknown;
}

export interface ReferenceObject {
  $ref: string;
}

export interface ResponseObject {
  description: string;
  headers?: Record<string, HeaderObject | ReferenceObject>;
  content?: Record<string, MediaTypeObject>;
}

export interface ParameterObject {
  name: string;
  in: 'query' | 'path' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: SchemaObject;
  example?: unknown;
}

export interface OperationObject {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  servers?: { url: string; description?: string }[];
  parameters?: ParameterObject[];
  responses: Record<string, ResponseObject>;
  deprecated?: boolean;
  [extension: `x-${string}`]: unknown;
}

export interface TagObject {
  name: string;
  description: string;
  /** the name a reference shows (Scalar, Redoc) */
  'x-displayName'?: string;
}

export interface OpenApiDocument {
  openapi: string;
  info: {
    title: string;
    version: string;
    description?: string;
    license?: { name: string; identifier?: string };
    contact?: { name?: string; url?: string; email?: string };
  };
  servers?: { url: string; description?: string }[];
  security?: Record<string, string[]>[];
  tags?: TagObject[];
  externalDocs?: { url: string; description?: string };
  paths: Record<string, Record<string, OperationObject>>;
  /** requests the API sends to its subscribers, by name (OpenAPI 3.1) */
  webhooks?: Record<string, Record<string, unknown>>;
  components: {
    schemas?: Record<string, SchemaObject>;
    headers?: Record<string, HeaderObject>;
    securitySchemes?: Record<string, unknown>;
  };
}
