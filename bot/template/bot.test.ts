import assert from 'node:assert/strict';
import { it } from 'node:test';
import { createBot } from '@gaming-hub/bot';
import { BotTestKit, chatEvent } from '@gaming-hub/bot/testkit';
import { setUp } from './bot.js';

it('answers !rank in game', async () => {
  const kit = new BotTestKit();
  const bot = setUp(createBot({ ...kit.options, name: 'my-bot' }));
  await kit.run(bot, [chatEvent({ text: '!rank', name: 'ace' })]);
  assert.deepEqual(kit.replies(), ['ace: play a round first.']);
});
