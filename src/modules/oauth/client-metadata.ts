import type { ClientMetadata } from 'oidc-provider';
import { SCOPE_NAMES } from '../../http/scopes.js';
import { redirectUrisOf, type AppRow } from '../apps/repo.js';

/**
 * An app as oidc-provider's client. A confidential app authenticates with HTTP Basic and its secret;
 * `client_secret` here is the stored SHA-256, which the provider compares against the hash of what
 * the client sends (see provider.ts), so the secret itself is never kept.
 */
export function clientMetadataOf(app: AppRow): ClientMetadata {
  const confidential = app.kind === 'confidential' && app.secret_hash !== null;
  return {
    client_id: app.client_id,
    client_name: app.name,
    redirect_uris: redirectUrisOf(app),
    response_types: ['code'],
    grant_types: confidential
      ? ['authorization_code', 'refresh_token', 'client_credentials']
      : ['authorization_code', 'refresh_token'],
    token_endpoint_auth_method: confidential ? 'client_secret_basic' : 'none',
    ...(confidential && app.secret_hash ? { client_secret: app.secret_hash } : {}),
    scope: SCOPE_NAMES.join(' '),
    ...(app.homepage_url ? { client_uri: app.homepage_url } : {}),
    ...(app.logo_url ? { logo_uri: app.logo_url } : {}),
  };
}
