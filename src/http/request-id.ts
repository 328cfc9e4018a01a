let counter = 0;
const instanceTag = Math.random().toString(36).slice(2, 8);

/**
 * A request id: this process's random tag and a counter, short and unique across instances. Also
 * used for answers written straight to the socket (client errors), which have no request object.
 */
export const nextRequestId = (): string => `${instanceTag}-${(++counter).toString(36)}`;
