/**
 * Turning a reply into console `say` commands a game server takes: each game's chat line length
 * and quoting. Lengths are in UTF-8 bytes, what the engines count; the figures are the chat
 * buffers of the engines, with room for the `Console: ` prefix the server adds.
 */
export interface GameChat {
  /** bytes of text one chat message shows */
  maxBytes: number;
  /** the console command that says `text` (already cut to `maxBytes`) */
  command(text: string): string;
}

/**
 * Source and GoldSrc split a console line on `;` outside quotes, and `say` drops the quotes around
 * its text: so the text goes in quotes, and a quote inside it (which would end them) becomes `'`.
 */
const quoted = (text: string) => `say "${text.replaceAll('"', "'")}"`;

export const GAME_CHAT: Readonly<Record<string, GameChat>> = {
  cs2: { maxBytes: 120, command: quoted },
  csgo: { maxBytes: 120, command: quoted },
  cs16: { maxBytes: 120, command: quoted },
  rust: { maxBytes: 120, command: quoted },
  // Minecraft runs one command per RCON packet, with no quoting: the text goes as it is
  minecraft: { maxBytes: 240, command: (text) => `say ${text}` },
};

const FALLBACK: GameChat = { maxBytes: 120, command: quoted };

export const chatOf = (game: string): GameChat => GAME_CHAT[game] ?? FALLBACK;

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

/** Control characters would end the console line (or be refused by the hub): they become spaces. */
// eslint-disable-next-line no-control-regex
const clean = (text: string) => text.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();

/**
 * The text as chat messages of at most `maxBytes` each, split between words. A single word longer
 * than a whole message (a URL) is the only thing ever cut, at a character boundary.
 */
export function splitMessage(text: string, maxBytes: number): string[] {
  const words = clean(text).split(/ +/).filter(Boolean);
  const out: string[] = [];
  let line = '';
  const push = () => {
    if (line) out.push(line);
    line = '';
  };
  for (let word of words) {
    const joined = line ? `${line} ${word}` : word;
    if (bytes(joined) <= maxBytes) {
      line = joined;
      continue;
    }
    push();
    while (bytes(word) > maxBytes) {
      let cut = '';
      for (const ch of word) {
        if (bytes(cut + ch) > maxBytes) break;
        cut += ch;
      }
      out.push(cut);
      word = word.slice(cut.length);
    }
    line = word;
  }
  push();
  return out;
}

/** The console commands that say `text` on a server of `game`, in order. */
export const sayCommands = (game: string, text: string): string[] => {
  const chat = chatOf(game);
  return splitMessage(text, chat.maxBytes).map((part) => chat.command(part));
};
