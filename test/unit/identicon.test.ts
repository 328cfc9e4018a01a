import assert from 'node:assert/strict';
import { it } from 'node:test';
import { identicon } from '../../src/modules/avatars/identicon.js';

it('draws a left-right mirrored 5×5 pattern, never empty, in a mid-tone colour', () => {
  for (let id = 1; id <= 2000; id++) {
    const { cells, color } = identicon(id);
    assert.equal(cells.length, 25);
    for (let row = 0; row < 5; row++) {
      const line = cells.slice(row * 5, row * 5 + 5);
      assert.deepEqual(line, [...line].reverse(), `id ${id}, row ${row}`);
    }
    assert.ok(cells.includes(true), `id ${id}`);
    // Readable on the light background: not near-white, not near-black.
    const luma = 0.2126 * color[0] + 0.7152 * color[1] + 0.0722 * color[2];
    assert.ok(luma > 25 && luma <= 150, `id ${id}: ${color.join(',')}`);
  }
  assert.deepEqual(identicon(42), identicon(42));
  assert.notDeepEqual(identicon(42), identicon(43));
});
