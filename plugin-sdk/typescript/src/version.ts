/** This package's version (test/version.test.ts keeps it equal to package.json's). */
export const VERSION = '0.1.0';
export const SDK_NAME = `@gaming-hub/plugin-sdk/${VERSION}`;
