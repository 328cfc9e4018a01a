import { ProblemError } from '../../http/problem.js';
import type { AppRow, AppsRepo } from './repo.js';
import { appFieldErrors, type AppFields } from './rules.js';
import { hashClientSecret, newClientId, newClientSecret } from './secret.js';

export interface NewAppInput extends AppFields {
  name: string;
  redirect_uris: string[];
  kind: 'public' | 'confidential';
}

export interface CreatedApp {
  app: AppRow;
  /** only for a confidential app, and only now */
  secret: string | undefined;
}

/** Tells the authorization server that an app is gone: every grant and token it holds dies. */
export type AppDeleted = (clientId: string) => Promise<void>;

function assertValid(fields: AppFields): void {
  const errors = appFieldErrors(fields);
  if (errors.length > 0) {
    throw new ProblemError('unprocessable', errors.map((e) => `${e.name} ${e.reason}`).join('; '), {
      invalidParams: errors,
    });
  }
}

/**
 * Registered apps (OAuth clients) of a developer. `ownerId` undefined is the operator (the CLI):
 * every app. An app owned by someone else is reported as absent, never as forbidden.
 */
export function appsService(repo: AppsRepo, onDeleted: AppDeleted, now: () => number) {
  async function owned(ownerId: number | undefined, id: number): Promise<AppRow> {
    const app = await repo.find(id);
    if (!app || (ownerId !== undefined && app.owner_id !== ownerId)) {
      throw new ProblemError('not_found', `You have no app with id ${id}.`);
    }
    return app;
  }

  return {
    list: (ownerId?: number) => repo.list(ownerId),
    get: owned,

    async create(ownerId: number, input: NewAppInput): Promise<CreatedApp> {
      assertValid(input);
      const secret = input.kind === 'confidential' ? newClientSecret() : undefined;
      const app = await repo.create({
        clientId: newClientId(),
        ownerId,
        name: input.name.trim(),
        kind: input.kind,
        redirectUris: input.redirect_uris,
        homepageUrl: input.homepage_url ?? null,
        logoUrl: input.logo_url ?? null,
        secretHash: secret ? hashClientSecret(secret) : null,
        now: now(),
      });
      return { app, secret };
    },

    async update(ownerId: number | undefined, id: number, changes: AppFields): Promise<AppRow> {
      await owned(ownerId, id);
      assertValid(changes);
      const updated = await repo.update(
        id,
        {
          ...(changes.name !== undefined ? { name: changes.name.trim() } : {}),
          ...(changes.redirect_uris !== undefined ? { redirectUris: changes.redirect_uris } : {}),
          ...(changes.homepage_url !== undefined ? { homepageUrl: changes.homepage_url } : {}),
          ...(changes.logo_url !== undefined ? { logoUrl: changes.logo_url } : {}),
        },
        now(),
      );
      if (!updated) throw new ProblemError('not_found', `You have no app with id ${id}.`);
      return updated;
    },

    /** A new secret for a confidential app; the old one stops working at once. */
    async rotateSecret(ownerId: number | undefined, id: number): Promise<string> {
      const app = await owned(ownerId, id);
      if (app.kind !== 'confidential') {
        throw new ProblemError('conflict', 'A public app has no client secret.');
      }
      const secret = newClientSecret();
      await repo.setSecretHash(id, hashClientSecret(secret), now());
      return secret;
    },

    async delete(ownerId: number | undefined, id: number): Promise<AppRow> {
      const app = await owned(ownerId, id);
      await repo.delete(id);
      await onDeleted(app.client_id);
      return app;
    },
  };
}

export type AppsService = ReturnType<typeof appsService>;
