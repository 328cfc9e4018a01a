import type { Output } from './transport.js';

/** One Discord embed (the fields an incoming webhook takes). */
export interface DiscordEmbed {
  title?: string;
  description?: string;
  url?: string;
  /** 0xRRGGBB */
  color?: number;
  /** ISO 8601 */
  timestamp?: string;
  fields?: { name: string; value: string; inline?: boolean }[];
  footer?: { text: string };
  author?: { name: string };
}

export interface DiscordMessage {
  content?: string;
  username?: string;
  embeds?: DiscordEmbed[];
}

/**
 * Discord's documented limits (Channel resource, "Embed Limits"; Execute Webhook): a message holds
 * at most 2,000 characters of content and 10 embeds; an embed a title and author name of 256, a
 * description of 4,096, 25 fields (name 256, value 1,024), a footer of 2,048, and 6,000 characters
 * in all of its text. A message over them is refused whole (400), so the bot fits it instead.
 */
export const DISCORD_LIMITS = {
  content: 2000,
  embeds: 10,
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  author: 256,
  total: 6000,
} as const;

const cut = (text: string, max: number): string => {
  const chars = Array.from(text);
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`;
};
const length = (text: string | undefined) => (text === undefined ? 0 : Array.from(text).length);

/** The message within Discord's limits: long texts end with `…`, extra fields and embeds are left out. */
export function fitDiscord(message: DiscordMessage): DiscordMessage {
  const L = DISCORD_LIMITS;
  let budget: number = L.total;
  /** the text cut to its own limit and to what the 6,000 left; undefined when nothing is left */
  const take = (text: string | undefined, max: number): string | undefined => {
    if (text === undefined || budget < 1) return undefined;
    const fitted = cut(text, Math.min(max, budget));
    budget -= length(fitted);
    return fitted;
  };
  const embeds = (message.embeds ?? []).slice(0, L.embeds).map((embed): DiscordEmbed => {
    const out: DiscordEmbed = { ...embed };
    delete out.title;
    delete out.author;
    delete out.footer;
    delete out.description;
    const title = take(embed.title, L.title);
    const author = embed.author ? take(embed.author.name, L.author) : undefined;
    const footer = embed.footer ? take(embed.footer.text, L.footer) : undefined;
    const description = take(embed.description, L.description);
    if (title !== undefined) out.title = title;
    if (author !== undefined) out.author = { name: author };
    if (footer !== undefined) out.footer = { text: footer };
    if (description !== undefined) out.description = description;
    const fields: NonNullable<DiscordEmbed['fields']> = [];
    for (const field of (embed.fields ?? []).slice(0, L.fields)) {
      // a field needs a name and a value of one character at least
      if (budget < 2) break;
      const name = take(field.name, Math.min(L.fieldName, budget - 1)) ?? '';
      const value = take(field.value, L.fieldValue) ?? '';
      fields.push({ ...field, name, value });
    }
    if (embed.fields) out.fields = fields;
    return out;
  });
  const fitted: DiscordMessage = { ...message };
  if (message.content !== undefined) fitted.content = cut(message.content, L.content);
  if (message.embeds) fitted.embeds = embeds;
  return fitted;
}

export interface WebhookOutputOptions {
  /** attempts in all, for 429 and 5xx answers and lost connections (default 5) */
  attempts?: number;
  /** the longest wait between attempts, and the longest `Retry-After` honoured (default 60 s) */
  maxWaitMs?: number;
  /** milliseconds for one attempt (default 15 s) */
  timeoutMs?: number;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
}

/** An answer that did not take the message, after the retries. */
export class OutputError extends Error {
  override name = 'OutputError';
  constructor(
    message: string,
    readonly status: number | undefined,
  ) {
    super(message);
  }
}

/** Seconds or an HTTP date (`Retry-After`), or Discord's JSON `retry_after` (seconds, fractional). */
async function retryAfterMs(response: Response): Promise<number | undefined> {
  const header = response.headers.get('retry-after');
  if (header !== null) {
    const seconds = Number(header);
    if (Number.isFinite(seconds)) return seconds * 1000;
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, date - Date.now());
  }
  try {
    const body = (await response.clone().json()) as { retry_after?: unknown };
    if (typeof body.retry_after === 'number') return body.retry_after * 1000;
  } catch {
    // not JSON: no hint
  }
  return undefined;
}

/** POSTs JSON with retries on 429 (waiting what the receiver asks), 5xx and lost connections. */
async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string>,
  options: WebhookOutputOptions,
): Promise<void> {
  const attempts = options.attempts ?? 5;
  const maxWaitMs = options.maxWaitMs ?? 60_000;
  const doFetch = options.fetch ?? fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  for (let attempt = 1; ; attempt++) {
    let response: Response | undefined;
    let failure: string;
    try {
      response = await doFetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
        redirect: 'error',
        signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
      });
      if (response.ok) {
        await response.body?.cancel();
        return;
      }
      failure = `${response.status} ${(await response.clone().text()).slice(0, 200)}`;
      if (response.status !== 429 && response.status < 500)
        throw new OutputError(`the receiver refused the message: ${failure}`, response.status);
    } catch (error) {
      if (error instanceof OutputError) throw error;
      failure = error instanceof Error ? error.message : String(error);
    }
    if (attempt >= attempts)
      throw new OutputError(
        `no answer took the message after ${attempts} attempts: ${failure}`,
        response?.status,
      );
    const asked = response ? await retryAfterMs(response) : undefined;
    if (asked !== undefined && asked > maxWaitMs)
      throw new OutputError(
        `the receiver asks to wait ${Math.round(asked / 1000)} s: ${failure}`,
        response?.status,
      );
    const backoff = Math.min(maxWaitMs, 500 * 2 ** (attempt - 1)) * (0.5 + Math.random() / 2);
    await sleep(asked ?? backoff);
  }
}

/**
 * A Discord incoming webhook (`https://discord.com/api/webhooks/<id>/<token>`): messages fitted to
 * Discord's limits; a 429 waits the `retry_after` Discord sends (body or `Retry-After`), a 5xx backs
 * off. Discord takes no idempotency key: a message made in the instant before a crash may be
 * posted again when the event is handled again (the only effect that can repeat).
 */
export function discordWebhook(url: string, options: WebhookOutputOptions = {}): Output<DiscordMessage> {
  return {
    name: 'discord',
    send: (message) => postJson(url, fitDiscord(message), {}, options),
  };
}

/**
 * Any HTTP endpoint taking JSON: the body is the message; `Idempotency-Key` carries the effect's
 * key, the same on every retry and after a restart, so the receiver can drop a repeat.
 */
export function httpWebhook<M = unknown>(
  url: string,
  options: WebhookOutputOptions & { headers?: Record<string, string> } = {},
): Output<M> {
  return {
    name: 'http',
    send: (message, key) => postJson(url, message, { ...options.headers, 'idempotency-key': key }, options),
  };
}
