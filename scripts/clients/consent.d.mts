// Types of consent.mjs for the TypeScript callers (bot/test/e2e.test.ts).
export function actAsUser(
  hubUrl: string,
  authorizationUrl: string,
  user: { username: string; password: string },
  redirectUri: string,
): Promise<string>;
