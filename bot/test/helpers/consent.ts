/**
 * A hub user going through the OAuth consent in a browser, done with fetch: signs in to the portal,
 * follows the authorization URL, allows on the consent page, and returns the callback URL the hub
 * redirects to (with the code).
 */
export async function actAsUser(
  hubUrl: string,
  authorizationUrl: string,
  user: { username: string; password: string },
  redirectUri: string,
): Promise<string> {
  const jar = new Map<string, string>();
  const keep = (headers: Headers) => {
    for (const cookie of headers.getSetCookie()) {
      const [pair = ''] = cookie.split(';');
      const eq = pair.indexOf('=');
      jar.set(pair.slice(0, eq), pair.slice(eq + 1));
    }
  };
  const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
  const signIn = await fetch(new URL('/api-platform/developer/session', hubUrl), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(user),
  });
  if (!signIn.ok) throw new Error(`portal sign-in failed: ${signIn.status} ${await signIn.text()}`);
  keep(signIn.headers);
  const start = new URL(authorizationUrl);
  let next = new URL(start.pathname + start.search, hubUrl);
  let init: RequestInit = { method: 'GET' };
  for (let hops = 0; hops < 15; hops++) {
    const res = await fetch(next, {
      ...init,
      redirect: 'manual',
      headers: { ...(init.headers as object), cookie: cookie() },
    });
    keep(res.headers);
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
