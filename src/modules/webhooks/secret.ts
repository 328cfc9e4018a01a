import { randomBytes } from 'node:crypto';

/**
 * A Standard Webhooks signing secret: `whsec_` + base64 of 32 random bytes (the spec allows 24 to
 * 64). It is stored as is, since signing needs it, and shown only when created or rotated.
 */
export const newWebhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;

/** How long a rotated secret keeps signing beside the new one. */
export const ROTATION_OVERLAP_MS = 24 * 3_600_000;
