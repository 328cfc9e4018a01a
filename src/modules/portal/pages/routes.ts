import type { FastifyReply, FastifyRequest } from 'fastify';
import type { App } from '../../../http/app-types.js';
import { ProblemError } from '../../../http/problem.js';
import type { AccountsService } from '../../accounts/service.js';
import type { Flash, PortalFlashes } from '../flash.js';
import type { PortalKeysService } from '../keys-service.js';
import {
  assertSameOrigin,
  clearSessionCookie,
  cookieHeader,
  CSRF_FIELD,
  FORM_CSRF_COOKIE,
  loadAccount,
  readCookies,
  sameToken,
  sessionIdOf,
  setSessionCookie,
} from '../session-auth.js';
import { newSecretToken } from '../../accounts/service.js';
import { IMMUTABLE, sendAsset } from '../../../http/static-asset.js';
import { ASSETS } from './assets.js';
import { acceptForms, formOf, formRoute, pageReply, seeOther, signedInPage } from './web-session.js';
import { originsPage } from './origins-page.js';
import {
  BASE,
  keysPage,
  messagePage,
  newKeyPage,
  revokePage,
  signInPage,
  signUpPage,
  usagePage,
} from './pages.js';

type Form = Record<string, string | undefined>;
const HIDE = { schema: { hide: true } } as const;
const page = pageReply;
const redirect = seeOther;
const keyId = (raw: string): number | undefined =>
  /^[1-9]\d{0,9}$/.test(raw) && Number(raw) <= 2147483647 ? Number(raw) : undefined;

/** The pre-session token for the sign-in and sign-up forms (double submit: cookie + hidden field). */
function formToken(request: FastifyRequest, reply: FastifyReply): string {
  const existing = readCookies(request).get(FORM_CSRF_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = newSecretToken();
  reply.header('set-cookie', cookieHeader(request, FORM_CSRF_COOKIE, token, 3600, 'Strict'));
  return token;
}

/**
 * The web pages of the portal: server-rendered, working without script, same services as the JSON
 * routes. Every form posts, then redirects (303) to a page; what that page must show once (an
 * error, a new key's secret) travels as a flash (see flash.ts), never in the URL.
 */
export function webRoutes(accounts: AccountsService, keys: PortalKeysService, flashes: PortalFlashes) {
  return (app: App): void => {
    acceptForms(app);
    const form = formOf;
    const str = (value: string | undefined, max: number) => (value ?? '').slice(0, max);

    /** Redirects to `path`, carrying `flash` for the owner's next page view. */
    async function redirectWith(reply: FastifyReply, owner: string, path: string, flash: Flash) {
      return redirect(reply, `${path}?flash=${await flashes.put(owner, flash)}`);
    }
    const notice = async (owner: string, request: FastifyRequest) => {
      const flash = await flashes.take(owner, (request.query as Form).flash);
      return flash?.kind === 'notice' ? flash : undefined;
    };

    /** A signed-in account, with the CSRF field checked on POST; otherwise a redirect was sent. */
    const session = signedInPage(accounts);

    /** The sign-in and sign-up forms' token, checked; it also owns their flashes. */
    function checkFormToken(request: FastifyRequest): string {
      assertSameOrigin(request);
      const token = readCookies(request).get(FORM_CSRF_COOKIE);
      if (!token || !sameToken(form(request)[CSRF_FIELD], token)) {
        throw new ProblemError('csrf_failed', 'The form is out of date; reload the page and try again.');
      }
      return token;
    }

    app.get<{ Params: { file: string } }>('/assets/:file', HIDE, (request, reply) => {
      const asset = ASSETS.get(request.params.file);
      if (!asset) throw new ProblemError('not_found', 'No such asset.');
      return sendAsset(request, reply, asset, IMMUTABLE);
    });

    app.get('/', HIDE, async (request, reply) =>
      redirect(reply, (await loadAccount(accounts, request)) ? `${BASE}/keys` : `${BASE}/sign-in`),
    );

    /**
     * A sign-in or sign-up form posted: `start` opens the session; when it refuses, the form at
     * `path` is shown again with the username as typed and `errorsOf` the problem.
     */
    const accountFormPost =
      (
        path: '/sign-in' | '/sign-up',
        start: AccountsService['signIn'],
        errorsOf: (err: ProblemError) => string[],
      ) =>
      async (request: FastifyRequest, reply: FastifyReply) => {
        const owner = checkFormToken(request);
        const { username, password } = form(request);
        try {
          const started = await start({
            username: str(username, 64),
            password: str(password, 1024),
            address: request.ip,
            currentSession: sessionIdOf(request),
          });
          setSessionCookie(request, reply, started.id);
          return await redirect(reply, `${BASE}/keys`);
        } catch (err) {
          if (!(err instanceof ProblemError)) throw err;
          return redirectWith(reply, owner, `${BASE}${path}`, {
            kind: 'notice',
            errors: errorsOf(err),
            username: str(username, 64),
          });
        }
      };

    app.get('/sign-in', HIDE, async (request, reply) => {
      if (await loadAccount(accounts, request)) return redirect(reply, `${BASE}/keys`);
      const csrf = formToken(request, reply);
      const shown = await notice(csrf, request);
      return page(reply, signInPage({ csrf, error: shown?.errors?.[0], username: shown?.username }));
    });
    app.post(
      '/sign-in',
      formRoute('username', 'password'),
      accountFormPost(
        '/sign-in',
        (input) => accounts.signIn(input),
        (err) => [err.detail],
      ),
    );

    app.get('/sign-up', HIDE, async (request, reply) => {
      if (await loadAccount(accounts, request)) return redirect(reply, `${BASE}/keys`);
      const csrf = formToken(request, reply);
      const shown = await notice(csrf, request);
      return page(reply, signUpPage({ csrf, errors: shown?.errors, username: shown?.username }));
    });
    app.post(
      '/sign-up',
      formRoute('username', 'password'),
      accountFormPost(
        '/sign-up',
        (input) => accounts.signUp(input),
        // each broken rule on its own line, named as the form labels it
        (err) =>
          err.extras.invalidParams?.map(
            (p) => `${p.name === 'username' ? 'Username' : 'Password'} ${p.reason}.`,
          ) ?? [err.detail],
      ),
    );

    app.post('/sign-out', formRoute(), async (request, reply) => {
      const account = await session(request, reply);
      if (!account) return reply;
      await accounts.signOut(account.sessionId);
      clearSessionCookie(request, reply);
      return redirect(reply, `${BASE}/sign-in`);
    });

    app.get('/keys', HIDE, async (request, reply) => {
      const account = await session(request, reply);
      if (!account) return reply;
      const shown = await notice(account.sessionId, request);
      return page(reply, keysPage(account, await keys.list(account), shown ?? {}));
    });

    app.post('/keys/new', formRoute('name'), async (request, reply) => {
      const account = await session(request, reply);
      if (!account) return reply;
      const name = (form(request).name ?? '').trim();
      const failed = (error: string) =>
        redirectWith(reply, account.sessionId, `${BASE}/keys`, {
          kind: 'notice',
          errors: [error],
          keyName: name.slice(0, 100),
        });
      if (name.length < 1 || name.length > 100) return failed('Give the key a name of 1 to 100 characters.');
      try {
        const { key, secret } = await keys.create(account, name);
        return await redirectWith(reply, account.sessionId, `${BASE}/keys/created`, {
          kind: 'key_created',
          keyId: key.id,
          secret,
        });
      } catch (err) {
        if (!(err instanceof ProblemError)) throw err;
        return failed(err.detail);
      }
    });

    // The one page that shows a key's secret, once: a reload or a second visit finds no flash.
    app.get('/keys/created', HIDE, async (request, reply) => {
      const account = await session(request, reply);
      if (!account) return reply;
      const flash = await flashes.take(account.sessionId, (request.query as Form).flash);
      if (flash?.kind !== 'key_created') {
        return page(
          reply,
          messagePage(
            'Key already shown',
            'A new key is shown only once, right after it is created, and this one has been. If you did not store it, revoke it and create another.',
            account,
          ),
        );
      }
      const key = await keys.get(account, flash.keyId);
      return page(reply, newKeyPage(account, key, flash.secret, `${request.protocol}://${request.host}`));
    });

    const ownKey = async (request: FastifyRequest, reply: FastifyReply) => {
      const account = await session(request, reply);
      if (!account) return undefined;
      const id = keyId((request.params as { id: string }).id);
      try {
        if (id === undefined) throw new ProblemError('key_not_found', 'There is no such key.');
        return { account, key: await keys.get(account, id) };
      } catch (err) {
        if (!(err instanceof ProblemError)) throw err;
        await page(reply, messagePage('Key not found', 'You have no API key with that id.', account), 404);
        return undefined;
      }
    };

    app.get('/keys/:id', HIDE, async (request, reply) => {
      const found = await ownKey(request, reply);
      if (!found) return reply;
      return page(
        reply,
        usagePage(found.account, found.key, await keys.usage(found.account, found.key.id, 48)),
      );
    });

    app.get('/keys/:id/revoke', HIDE, async (request, reply) => {
      const found = await ownKey(request, reply);
      if (!found) return reply;
      if (found.key.revoked) return redirect(reply, `${BASE}/keys`);
      return page(reply, revokePage(found.account, found.key));
    });

    app.get('/keys/:id/origins', HIDE, async (request, reply) => {
      const found = await ownKey(request, reply);
      if (!found) return reply;
      return page(
        reply,
        originsPage(found.account, found.key, (await notice(found.account.sessionId, request)) ?? {}),
      );
    });

    app.post('/keys/:id/origins', formRoute('origins'), async (request, reply) => {
      const found = await ownKey(request, reply);
      if (!found) return reply;
      const typed = str(form(request).origins, 2200);
      const back = `${BASE}/keys/${found.key.id}/origins`;
      try {
        const key = await keys.setOrigins(found.account, found.key.id, typed.split(/\s+/));
        const success =
          key.allowed_origins.length === 0
            ? 'Any origin may use this key.'
            : `Saved: only ${key.allowed_origins.join(', ')} may use this key from a browser.`;
        return await redirectWith(reply, found.account.sessionId, back, { kind: 'notice', success });
      } catch (err) {
        if (!(err instanceof ProblemError)) throw err;
        const errors = err.extras.invalidParams?.map((e) => `${e.reason}.`) ?? [err.detail];
        return redirectWith(reply, found.account.sessionId, back, { kind: 'notice', errors, origins: typed });
      }
    });

    app.post('/keys/:id/revoke', formRoute(), async (request, reply) => {
      const found = await ownKey(request, reply);
      if (!found) return reply;
      await keys.revoke(found.account, found.key.id);
      return redirectWith(reply, found.account.sessionId, `${BASE}/keys`, {
        kind: 'notice',
        success: `The key “${found.key.name}” was revoked.`,
      });
    });
  };
}
