// What every client generator reads: the served document with one server (`/`, the service's
// origin) and every path written in full. Generators ignore per-operation `servers`, so an
// operation documented under `/v1` would otherwise be called under `/api-platform/v1/v1`.
// Once the served document is written this way (DESIGN.md, "Client libraries") this is a no-op.
// One change stays: an `Idempotency-Key` header is optional to the caller, because every library
// generates one per call (and reuses it on retries) when the caller gives none.

type Json = Record<string, unknown>;
interface Server {
  url: string;
}
const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

const serverPath = (servers: unknown): string | undefined => {
  const first = Array.isArray(servers) ? (servers[0] as Server | undefined) : undefined;
  if (!first) return undefined;
  // an absolute server URL keeps only its path: the client's base URL is the origin
  const path = /^[a-z]+:\/\//i.test(first.url) ? new URL(first.url).pathname : first.url;
  return path.replace(/\/+$/, '');
};

/** A copy of `document` with full paths, one root server, and no per-path or per-operation servers. */
export function generatorDocument(document: Json): Json {
  const doc = structuredClone(document);
  const rootPrefix = serverPath(doc.servers) ?? '';
  const paths: Record<string, Json> = {};
  for (const [path, rawItem] of Object.entries((doc.paths ?? {}) as Record<string, Json>)) {
    const item = { ...rawItem };
    const itemPrefix = serverPath(item.servers);
    delete item.servers;
    const written: string[] = [];
    for (const method of METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      const prefix = serverPath(operation.servers) ?? itemPrefix ?? rootPrefix;
      delete operation.servers;
      for (const parameter of (operation.parameters ?? []) as Json[])
        if (parameter.in === 'header' && String(parameter.name).toLowerCase() === 'idempotency-key')
          parameter.required = false;
      const full = `${prefix}${path}`;
      paths[full] = { ...paths[full], [method]: operation };
      written.push(full);
      Reflect.deleteProperty(item, method);
    }
    // what is not an operation (parameters, summary) stays with every operation's path
    for (const full of written) paths[full] = { ...item, ...paths[full] };
  }
  doc.paths = paths;
  doc.servers = [{ url: '/', description: 'The service: its origin is the client’s base URL' }];
  return doc;
}
