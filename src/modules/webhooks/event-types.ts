import { isEventType } from '../events/catalog.js';

/** `*`: every event type, present and future. */
export const ALL_EVENTS = '*';

/** Whether a type may be subscribed to: a type of the catalog (`GET /v1/events/types`). */
export const isSubscribableType = (type: string): boolean => isEventType(type);
