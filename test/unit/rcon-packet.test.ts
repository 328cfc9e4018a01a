import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rconProtocolOf, validateRconCommand } from '../../src/modules/servers/rcon/index.js';
import { completeUtf8Prefix } from '../../src/modules/servers/rcon/output.js';
import { encodePacket, PacketReader, PacketSizeError } from '../../src/modules/servers/rcon/source-packet.js';

// The Valve Developer Wiki's worked example: SERVERDATA_AUTH, id 0, password "passwrd".
const WIKI_AUTH = Buffer.from('110000000000000003000000706173737772640000', 'hex');

describe('Source RCON packets', () => {
  it('encodes the wiki example byte for byte', () => {
    assert.deepEqual(encodePacket(0, 3, 'passwrd'), WIKI_AUTH);
  });

  it('decodes a packet however the stream is cut, and several packets from one read', () => {
    const stream = Buffer.concat([WIKI_AUTH, encodePacket(7, 0, 'héllo'), encodePacket(-1, 2, '')]);
    for (let cut = 0; cut <= stream.length; cut++) {
      const reader = new PacketReader();
      const packets = [...reader.push(stream.subarray(0, cut)), ...reader.push(stream.subarray(cut))];
      assert.deepEqual(
        packets.map((p) => [p.id, p.type, p.body.toString('utf8')]),
        [
          [0, 3, 'passwrd'],
          [7, 0, 'héllo'],
          [-1, 2, ''],
        ],
        `cut at ${cut}`,
      );
    }
  });

  it('accepts a body ended by one NUL instead of two', () => {
    const oneNul = Buffer.from('0c000000050000000000000068692100', 'hex'); // size 12: id 5, type 0, "hi!\0"
    assert.equal(new PacketReader().push(oneNul)[0]?.body.toString(), 'hi!');
  });

  it('rejects a size no RCON packet has, before buffering it', () => {
    assert.throws(() => new PacketReader().push(Buffer.from('HTTP/1.1 400')), PacketSizeError);
    assert.throws(() => new PacketReader().push(Buffer.from([0xff, 0xff, 0xff, 0xff])), PacketSizeError);
    assert.throws(() => new PacketReader().push(Buffer.from([4, 0, 0, 0])), PacketSizeError);
  });
});

describe('output cut on a UTF-8 boundary', () => {
  it('drops a character cut in the middle and keeps a whole one', () => {
    const text = Buffer.from('a€🎮');
    assert.equal(completeUtf8Prefix(text.subarray(0, 1)).toString(), 'a');
    assert.equal(completeUtf8Prefix(text.subarray(0, 3)).toString(), 'a');
    assert.equal(completeUtf8Prefix(text.subarray(0, 4)).toString(), 'a€');
    assert.equal(completeUtf8Prefix(text.subarray(0, 7)).toString(), 'a€');
    assert.equal(completeUtf8Prefix(text).toString(), 'a€🎮');
  });
});

describe('validateRconCommand and rconProtocolOf', () => {
  it('accepts a console line and refuses what would end it early', () => {
    assert.equal(validateRconCommand('say "gg wp" ünïcødé'), null);
    assert.equal(validateRconCommand('mp_restartgame\t1'), null);
    for (const bad of [
      '',
      '  ',
      'status\nquit',
      'status\rquit',
      'say \u0000',
      'say \u001b[31m',
      'x'.repeat(1025),
    ]) {
      assert.equal(typeof validateRconCommand(bad), 'string', JSON.stringify(bad));
    }
  });

  it('maps games to their console protocol', () => {
    assert.deepEqual(
      ['cs2', 'csgo', 'minecraft', 'cs16', 'rust', 'dota2', 'constructor'].map(rconProtocolOf),
      ['source', 'source', 'source', 'goldsrc', 'webrcon', null, null],
    );
  });
});
