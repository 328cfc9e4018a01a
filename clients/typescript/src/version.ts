/** This library's version (package.json's; a test keeps the two equal). */
export const VERSION = '0.1.0';
export const USER_AGENT = `gaming-hub-client-typescript/${VERSION}`;
