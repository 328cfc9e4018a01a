import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sseFrames } from '../src/sse.js';

const streamOf = (...chunks: string[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      controller.close();
    },
  });

describe('sseFrames', () => {
  it('parses frames split anywhere, with comments, CRLF and multi-line data', async () => {
    const frames = [];
    for await (const frame of sseFrames(
      streamOf(
        'retry: 1000\n: open\n\nid: evt_1\nev',
        'ent: a.b\ndata: {"x":\r\ndata: 1}\r\n\r',
        '\nid: evt_2\ndata:2\n\n',
      ),
    ))
      frames.push(frame);
    assert.deepEqual(frames, [
      { id: undefined, event: 'message', data: '', retry: 1000 },
      { id: 'evt_1', event: 'a.b', data: '{"x":\n1}', retry: undefined },
      { id: 'evt_2', event: 'message', data: '2', retry: undefined },
    ]);
  });
});
