/**
 * Names of fields and query parameters whose values are never repeated in an answer or a log line:
 * passwords, keys, tokens, client secrets, OAuth codes and verifiers, signatures.
 */
export const SECRET_NAME = /pass|secret|token|key|code|credential|signature|session/i;

/** A query string with the values of secret-looking parameters replaced (`api_key=[redacted]`). */
export function redactQuery(query: string): string {
  if (!SECRET_NAME.test(query)) return query;
  return query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      return eq >= 0 && SECRET_NAME.test(name) ? `${name}=[redacted]` : pair;
    })
    .join('&');
}
