import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { App } from '../../../http/app-types.js';
import { ProblemError } from '../../../http/problem.js';
import type { AccountsService } from '../../accounts/service.js';
import {
  assertSameOrigin,
  CSRF_FIELD,
  loadAccount,
  PORTAL_PREFIX,
  sameToken,
  type PortalAccount,
} from '../session-auth.js';
import { PORTAL_BODY_LIMIT } from '../routes.js';

/**
 * The pages' script and style policy: nothing inline, nothing from elsewhere, never framed.
 * `formAction: false` leaves `form-action` out, for a form whose answer redirects to another origin:
 * browsers apply `form-action` to the whole redirect chain.
 */
export function pageCsp({ formAction = true }: { formAction?: boolean } = {}): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "connect-src 'self'",
    ...(formAction ? ["form-action 'self'"] : []),
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}
export const PAGE_CSP = pageCsp();

export const pageReply = (reply: FastifyReply, body: string, status = 200, csp = PAGE_CSP) =>
  reply.code(status).type('text/html; charset=utf-8').header('content-security-policy', csp).send(body);

/** 303 See Other: the browser follows with a GET, and a reload repeats that GET, never the POST. */
export const seeOther = (reply: FastifyReply, to: string) => reply.code(303).header('location', to).send();

type Form = Record<string, string | undefined>;

/**
 * What one HTML form sends: its named text fields (each optional: a browser leaves out an unchecked
 * box, and the handler says what is missing in the page it redirects to) and its CSRF field, and
 * nothing else. A field the form does not have is a 400 problem naming it, as for every JSON body
 * (DESIGN.md, "Bodies are exact"): a typo'd or forged field is never silently dropped.
 */
export function formFields(...names: string[]) {
  return Type.Object(
    Object.fromEntries([CSRF_FIELD, ...names].map((name) => [name, Type.Optional(Type.String())])),
    { additionalProperties: false, description: 'the fields of an HTML form, as text' },
  );
}

/** The route options of a page's form: hidden from the document, its fields declared (formFields). */
export const formRoute = (...names: string[]) => ({ schema: { hide: true, body: formFields(...names) } });

/**
 * The scope's routes are the pages' forms: they read urlencoded bodies, and only those. JSON is
 * refused (415) here, where the app-wide parser would otherwise hand a handler that reads form
 * strings a number or an object (a sign-up posted as JSON with a numeric password was a 500), and
 * every POST declares its fields (formRoute), checked like any body: a POST that declares none is a
 * mistake caught when the app starts. Parsed only inside the scope given, so the JSON routes keep
 * refusing urlencoded bodies.
 */
export function acceptForms(app: App): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: PORTAL_BODY_LIMIT },
    (_req, body, done) => {
      const form = Object.fromEntries(new URLSearchParams(body as string));
      // as in JSON bodies (http/json-body.ts): no text here may hold U+0000
      const field = Object.entries(form).find(([name, value]) => `${name}${value}`.includes('\u0000'))?.[0];
      if (field === undefined) done(null, form);
      else
        done(
          new ProblemError(
            'invalid_body',
            `The form field ${JSON.stringify(field)} holds U+0000 (a NUL character).`,
          ),
          undefined,
        );
    },
  );
  app.addHook('onRoute', (route) => {
    // every form of the portal is capped like its JSON routes, whatever the body claims to be
    route.bodyLimit ??= PORTAL_BODY_LIMIT;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    if (methods.includes('POST') && route.schema?.body === undefined)
      throw new Error(`the form POST ${route.url} declares no fields: give it formRoute(...)`);
  });
}

export const formOf = (request: FastifyRequest): Form =>
  request.body && typeof request.body === 'object' ? (request.body as Form) : {};

/**
 * A page's signed-in account, with the form's CSRF field checked on POST; without a session the
 * visitor was sent to the sign-in page (and undefined is returned).
 */
export function signedInPage(accounts: AccountsService) {
  return async function session(
    request: FastifyRequest,
    reply: FastifyReply,
  ): Promise<PortalAccount | undefined> {
    const account = await loadAccount(accounts, request);
    if (!account) {
      await seeOther(reply, `${PORTAL_PREFIX}/sign-in`);
      return undefined;
    }
    if (request.method === 'POST') {
      assertSameOrigin(request);
      if (!sameToken(formOf(request)[CSRF_FIELD], account.csrfToken)) {
        throw new ProblemError('csrf_failed', 'The form is out of date; reload the page and try again.');
      }
    }
    return account;
  };
}
