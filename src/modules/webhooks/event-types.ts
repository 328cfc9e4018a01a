/** `*`: every event type, present and future. */
export const ALL_EVENTS = '*';

/**
 * Whether a type may be subscribed to. Until the catalog (modules/events/catalog.ts) lands this
 * accepts any `resource.action` name.
 */
export const isSubscribableType = (type: string): boolean =>
  /^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/.test(type);
