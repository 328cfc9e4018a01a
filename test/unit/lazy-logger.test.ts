import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { LazyChildLogger } from '../../src/http/lazy-logger.js';

function rootLogger(level: string) {
  const lines: Record<string, unknown>[] = [];
  const logger = pino(
    { level },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  let children = 0;
  const counted = Object.create(logger) as FastifyBaseLogger;
  counted.child = (bindings, options) => {
    children++;
    return logger.child(bindings, options);
  };
  return { logger: counted, lines, children: () => children };
}

describe('LazyChildLogger', () => {
  it('makes no child logger while nothing is written at an enabled level', () => {
    const root = rootLogger('warn');
    const log = new LazyChildLogger(root.logger, { reqId: 'a-1' }, {});
    log.info({ x: 1 }, 'not written');
    log.debug('not written');
    assert.equal(log.level, 'warn');
    assert.equal(root.children(), 0);
    assert.equal(root.lines.length, 0);
  });

  it('writes through a child bound to the request once a line is enabled', () => {
    const root = rootLogger('info');
    const log = new LazyChildLogger(root.logger, { reqId: 'a-2' }, {});
    log.error({ code: 'E' }, 'failed');
    log.info('again');
    assert.equal(root.children(), 1, 'one child, made on first use');
    assert.deepEqual(
      root.lines.map((l) => [l.reqId, l.msg, l.code]),
      [
        ['a-2', 'failed', 'E'],
        ['a-2', 'again', undefined],
      ],
    );
  });

  it('honours a level given to the child', () => {
    const root = rootLogger('info');
    const log = new LazyChildLogger(root.logger, { reqId: 'a-3' }, { level: 'error' });
    log.warn('below the child level');
    assert.equal(log.level, 'error');
    assert.equal(root.lines.length, 0);
  });
});
