import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import type { WebhookTestResult } from '../webhooks/test-send.js';
import type { PortalRepo } from './repo.js';

/** What a page shows once after a form redirected to it. */
export type Flash =
  | { kind: 'key_created'; keyId: number; secret: string }
  /** an app's client secret, new or rotated (shown once) */
  | { kind: 'app_secret'; appId: number; secret: string }
  /** a webhook's signing secret, new or rotated (shown once) */
  | { kind: 'webhook_secret'; webhookId: number; secret: string }
  /** what the receiver answered the webhook test page's sample */
  | { kind: 'webhook_test'; result: WebhookTestResult }
  | {
      kind: 'notice';
      success?: string;
      errors?: string[];
      /** what the visitor typed, to fill the form in again (never a password) */
      username?: string;
      keyName?: string;
      /** the allowed-origins text as typed, when it was refused */
      origins?: string;
    };

/** The redirect target follows at once; minutes only cover a slow network or a paused tab. */
export const FLASH_TTL_MS = 5 * 60_000;
/** 128 random bits, base64url: the `flash` query parameter of the page redirected to. */
export const FLASH_ID = /^[A-Za-z0-9_-]{22}$/;

const ownerHash = (owner: string) => createHash('sha256').update(`portal flash owner:${owner}`).digest('hex');
const keyFor = (owner: string, id: string) =>
  Buffer.from(hkdfSync('sha256', owner, id, 'gaming hub portal flash', 32));

/**
 * Post/redirect/get for the portal's forms: a form stores what the next page must show and
 * redirects to it with the flash id in the URL; that page takes the flash (read and delete in one
 * statement), so a reload or the back button shows nothing twice and repeats nothing.
 *
 * A flash belongs to an owner secret the browser holds in a cookie (the session id, or the sign-in
 * form token), and is encrypted (AES-256-GCM) with a key derived from it. The database stores only
 * a hash of the owner, so a stored flash (a new key's secret for a few seconds) cannot be read from
 * the database, a backup or a log; the id in the URL is useless without the cookie.
 */
export function portalFlashes(repo: PortalRepo, now: () => number) {
  return {
    async put(owner: string, flash: Flash): Promise<string> {
      const id = randomBytes(16).toString('base64url');
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', keyFor(owner, id), iv);
      const sealed = Buffer.concat([cipher.update(JSON.stringify(flash)), cipher.final()]);
      const payload = Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url');
      const at = now();
      await repo.putFlash({ id, owner_hash: ownerHash(owner), payload, expires_at: at + FLASH_TTL_MS }, at);
      return id;
    },

    /** The flash, once; undefined when absent, taken, expired, malformed or another owner's. */
    async take(owner: string, id: unknown): Promise<Flash | undefined> {
      if (typeof id !== 'string' || !FLASH_ID.test(id)) return undefined;
      const payload = await repo.takeFlash(id, ownerHash(owner), now());
      if (payload === undefined) return undefined;
      const bytes = Buffer.from(payload, 'base64url');
      try {
        const decipher = createDecipheriv('aes-256-gcm', keyFor(owner, id), bytes.subarray(0, 12));
        decipher.setAuthTag(bytes.subarray(12, 28));
        const json = Buffer.concat([decipher.update(bytes.subarray(28)), decipher.final()]).toString();
        return JSON.parse(json) as Flash;
      } catch {
        // Altered in the database: authentication fails, and the page shows what it shows without one.
        return undefined;
      }
    },
  };
}

export type PortalFlashes = ReturnType<typeof portalFlashes>;
