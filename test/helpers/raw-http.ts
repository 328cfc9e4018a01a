import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** the server closed the connection (within the wait) */
  closed: boolean;
  /** milliseconds from the first byte written to the end of the answer (or the close) */
  ms: number;
}

/** Splits the first HTTP/1.1 response in `text`. */
function parse(text: string): Omit<RawResponse, 'closed' | 'ms'> {
  const end = text.indexOf('\r\n\r\n');
  const head = end >= 0 ? text.slice(0, end) : text;
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return {
    status: Number(statusLine.split(' ')[1] ?? 0),
    headers,
    body: end >= 0 ? text.slice(end + 4) : '',
  };
}

/**
 * Writes `request` (raw bytes: malformed on purpose, or cut short) to a fresh connection and reads
 * until the server closes it or `waitMs` passes; then parses the first response.
 */
export function rawRequest(port: number, request: string, waitMs = 3000): Promise<RawResponse> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket = connect(port, '127.0.0.1', () => socket.write(request));
    let text = '';
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parse(text), closed, ms: Date.now() - started });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    socket.on('close', () => finish(true));
    socket.on('error', () => finish(true));
  });
}
