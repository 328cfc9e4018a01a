// Types of hub.mjs for the TypeScript callers (bench/clients-typescript.ts).
export interface ConformanceFixture {
  api_key: string;
  api_key_id: number;
  users: Record<'alice' | 'bob', { id: number; username: string; password: string }>;
  developer: { id: number; username: string; password: string };
  oauth_app: { client_id: string; redirect_uri: string };
}
export const REDIRECT_URI: string;
export const PASSWORD: string;
export function prepareTemplate(): { dir: string; fixture: ConformanceFixture };
export function startHub(templateDir: string): Promise<{
  url: string;
  dir: string;
  output(): string;
  stop(): Promise<void>;
}>;
