/** One Server-Sent Events frame. */
export interface SseFrame {
  id: string | undefined;
  event: string;
  data: string;
  /** the reconnection delay the server asked for, if this frame set one */
  retry: number | undefined;
}

/**
 * Frames of a `text/event-stream` body (the WHATWG parsing rules: `\r\n`, `\r` or `\n` line ends,
 * comment lines, multi-line data). `onActivity` is told of every chunk, comments included, so a
 * caller can notice a silent connection.
 */
export async function* sseFrames(
  body: ReadableStream<Uint8Array>,
  onActivity: () => void = () => undefined,
): AsyncGenerator<SseFrame> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let frame: SseFrame = { id: undefined, event: 'message', data: '', retry: undefined };
  let hasData = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      onActivity();
      buffer += decoder.decode(value, { stream: true });
      const lines = buffer.split(/\r\n|\r|\n/);
      // the last piece may be half a line; a lone \r at the end may be half of \r\n
      buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (line === '') {
          // a frame without data is only worth telling when it changes the reconnection delay
          if (hasData || frame.retry !== undefined) yield frame;
          frame = { id: undefined, event: 'message', data: '', retry: undefined };
          hasData = false;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        let value = colon === -1 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'data') {
          frame.data = hasData ? `${frame.data}\n${value}` : value;
          hasData = true;
        } else if (field === 'event') frame.event = value;
        else if (field === 'id' && !value.includes('\0')) frame.id = value;
        else if (field === 'retry' && /^\d+$/.test(value)) frame.retry = Number(value);
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
