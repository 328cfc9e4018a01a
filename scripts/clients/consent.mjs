// A browser user at the OAuth consent step, done with fetch: the conformance proxy acts it for every
// language's scenarios, and the bot's end-to-end test authorizes its bot with it. Plain JS so the
// client runner loads it without tsx; consent.d.mts types it for the TypeScript tests.

/** Keeps the name=value pairs of a response's Set-Cookie headers in `jar` (`Max-Age=0` removes one). */
function cookiesOf(headers, jar) {
  for (const line of headers.getSetCookie?.() ?? []) {
    const pair = line.split(';')[0];
    const eq = pair.indexOf('=');
    if (/max-age=0/i.test(line)) jar.delete(pair.slice(0, eq));
    else jar.set(pair.slice(0, eq), pair.slice(eq + 1));
  }
}
const cookieHeader = (jar) => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');

/**
 * A browser user at the consent step: signs in to the portal, opens the authorization URL,
 * allows the app on the consent page (its CSRF field included), and returns the URL the hub
 * redirected to (the app's callback with `code` and `state`, or an `error`).
 */
export async function actAsUser(hubUrl, authorizationUrl, user, redirectUri) {
  const jar = new Map();
  const signIn = await fetch(new URL('/api-platform/developer/session', hubUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: user.username, password: user.password }),
  });
  if (!signIn.ok) throw new Error(`portal sign-in failed: ${signIn.status} ${await signIn.text()}`);
  cookiesOf(signIn.headers, jar);
  const start = new URL(authorizationUrl);
  let next = new URL(start.pathname + start.search, hubUrl);
  let init = { method: 'GET' };
  for (let hops = 0; hops < 15; hops++) {
    const res = await fetch(next, {
      ...init,
      redirect: 'manual',
      headers: { ...init.headers, cookie: cookieHeader(jar) },
    });
    cookiesOf(res.headers, jar);
    const location = res.headers.get('location');
    if (res.status >= 300 && res.status < 400 && location) {
      if (location.startsWith(redirectUri)) return location;
      next = new URL(location, next);
      init = { method: 'GET' };
      continue;
    }
    // the page's own form, after its header (a signed-in page's header holds the sign-out form)
    const full = await res.text();
    const page = full.slice(Math.max(0, full.indexOf('<main')));
    const action = /<form method="post" action="([^"]+)"/.exec(page)?.[1];
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
    if (!action || !csrf) throw new Error(`no consent form (${res.status}): ${page.slice(0, 300)}`);
    next = new URL(action.replace(/&amp;/g, '&'), next);
    init = {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: csrf, decision: 'allow' }).toString(),
    };
  }
  throw new Error('too many redirects in the authorization flow');
}
