// The conformance run's front door: every language talks to the hub through it. It forwards
// requests unchanged, except that a request naming its scenario (`x-conformance-scenario`) meets
// the faults that scenario declares in clients/conformance/scenarios.json (a 429, a connection
// dropped after the hub answered, a stream cut after N events). Under /__conformance/ it also acts
// as the user in the OAuth consent step and collects webhook deliveries, so a language's scenarios
// need nothing but HTTP and its own library; /__conformance/requests?scenario=NAME lists what the
// proxy saw of a scenario's requests (attempts, Idempotency-Key, Last-Event-ID).
//
// CORS, for the browser column (a page of another origin calling through the proxy): the hub's own
// CORS answers pass through unchanged (preflights are forwarded too), the proxy only adds its
// `x-conformance-scenario` header to what a preflight the hub granted allows, and it answers CORS
// itself for its control routes and for the answers it makes up in the hub's place (faults).
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { actAsUser } from './consent.mjs';

const SCENARIO_HEADER = 'x-conformance-scenario';

const readBody = (req) =>
  new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });

/** What a page may read of an answer the proxy makes up: what the hub exposes on its own. */
const EXPOSED =
  'retry-after, x-request-id, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, etag';

/** CORS headers for an answer of the proxy's own, when a browser (it sends `Origin`) asked. */
const corsOf = (req) =>
  req.headers.origin === undefined
    ? {}
    : { 'access-control-allow-origin': '*', 'access-control-expose-headers': EXPOSED };

const isPreflight = (req) =>
  req.method === 'OPTIONS' && req.headers['access-control-request-method'] !== undefined;

const sendJson = (req, res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json', ...corsOf(req) });
  res.end(JSON.stringify(body));
};

/**
 * Starts the proxy in front of `hubUrl`. `scenarios` are the parsed scenarios (their faults),
 * `fixture` the users it may act as. Fault counters start at zero for each proxy (one per language).
 */
export async function startConformanceProxy({ hubUrl, scenarios, fixture }) {
  const hub = new URL(hubUrl);
  const agent = new http.Agent({ keepAlive: true });
  const used = new Map(); // scenario + fault index -> times applied
  const inboxes = new Map(); // id -> { deliveries, waiters }
  const requests = new Map(); // scenario -> what the proxy saw of its requests
  let origin = '';

  const faultFor = (req, pathname) => {
    const name = req.headers[SCENARIO_HEADER];
    const scenario = typeof name === 'string' ? scenarios.find((s) => s.name === name) : undefined;
    for (const [index, fault] of (scenario?.faults ?? []).entries()) {
      if (fault.match !== `${req.method} ${pathname}`) continue;
      const key = `${name}#${index}`;
      const times = used.get(key) ?? 0;
      if (times >= (fault.times ?? 1)) continue;
      used.set(key, times + 1);
      return fault;
    }
    return undefined;
  };

  async function control(req, res, url) {
    const parts = url.pathname.split('/').filter(Boolean); // ['__conformance', what, id?]
    if (isPreflight(req)) {
      res.writeHead(204, {
        ...corsOf(req),
        'access-control-allow-methods': 'GET, POST',
        'access-control-allow-headers': 'content-type',
      });
      return void res.end();
    }
    if (req.method === 'POST' && parts[1] === 'authorize') {
      const { url: authUrl, user } = JSON.parse((await readBody(req)).toString());
      const who = fixture.users[user];
      if (!who) return sendJson(req, res, 400, { error: `unknown user ${user}` });
      try {
        // the app's callback is the authorization URL's redirect_uri (the browser run's app has its own)
        const redirectUri =
          new URL(authUrl).searchParams.get('redirect_uri') ?? fixture.oauth_app.redirect_uri;
        const callback = await actAsUser(hubUrl, authUrl, who, redirectUri);
        return sendJson(req, res, 200, { callback });
      } catch (error) {
        return sendJson(req, res, 502, { error: String(error) });
      }
    }
    if (req.method === 'GET' && parts[1] === 'requests') {
      return sendJson(req, res, 200, { requests: requests.get(url.searchParams.get('scenario')) ?? [] });
    }
    if (req.method === 'POST' && parts[1] === 'inbox' && parts.length === 2) {
      const id = randomUUID();
      inboxes.set(id, { deliveries: [], waiters: [] });
      return sendJson(req, res, 201, { id, url: `${origin}/__conformance/inbox/${id}` });
    }
    const inbox = parts[1] === 'inbox' ? inboxes.get(parts[2] ?? '') : undefined;
    if (!inbox) return sendJson(req, res, 404, { error: 'unknown control route or inbox' });
    if (req.method === 'POST') {
      // a webhook delivery from the hub: kept byte for byte (as a string) with its headers
      inbox.deliveries.push({ headers: req.headers, body: (await readBody(req)).toString('utf8') });
      for (const wake of inbox.waiters.splice(0)) wake();
      res.writeHead(204, corsOf(req)).end();
      return;
    }
    const waitMs = Math.min(Number(url.searchParams.get('wait_ms') ?? 0), 30_000);
    if (inbox.deliveries.length === 0 && waitMs > 0)
      await new Promise((wake) => {
        const timer = setTimeout(wake, waitMs);
        inbox.waiters.push(() => {
          clearTimeout(timer);
          wake();
        });
      });
    return sendJson(req, res, 200, { deliveries: inbox.deliveries });
  }

  /** A preflight goes to the hub without the proxy's own header; the proxy allows that one itself. */
  function preflightHeaders(headers) {
    const asked = String(headers['access-control-request-headers'] ?? '')
      .split(',')
      .map((name) => name.trim().toLowerCase())
      .filter((name) => name && name !== SCENARIO_HEADER);
    if (asked.length > 0) headers['access-control-request-headers'] = asked.join(', ');
    else delete headers['access-control-request-headers'];
  }
  const grantScenarioHeader = (answer) => {
    const allowed = answer.headers['access-control-allow-headers'];
    if (answer.headers['access-control-allow-origin'] === undefined) return; // the hub refused
    answer.headers['access-control-allow-headers'] = allowed
      ? `${allowed}, ${SCENARIO_HEADER}`
      : SCENARIO_HEADER;
  };

  function forward(req, res, fault) {
    const headers = { ...req.headers, host: hub.host };
    delete headers[SCENARIO_HEADER];
    const preflight = isPreflight(req);
    if (preflight) preflightHeaders(headers);
    const upstream = http.request(
      { host: hub.hostname, port: hub.port, method: req.method, path: req.url, headers, agent },
      (answer) => {
        if (preflight) grantScenarioHeader(answer);
        if (fault?.drop === 'after_forward') {
          // the hub did the work and answered; the client never hears of it
          answer.resume();
          answer.on('end', () => req.socket.destroy());
          return;
        }
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        if (fault?.drop !== 'after_events') return void answer.pipe(res);
        let buffer = '';
        let sent = 0;
        let cut = false;
        answer.setEncoding('utf8');
        answer.on('data', (chunk) => {
          if (cut) return;
          buffer += chunk;
          let end;
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            const frame = buffer.slice(0, end + 2);
            buffer = buffer.slice(end + 2);
            res.write(frame);
            if (/^id:/m.test(frame) && ++sent >= (fault.events ?? 1)) {
              // cut a moment later: destroying the socket at once could drop the frame unsent
              cut = true;
              answer.destroy();
              setTimeout(() => res.socket?.destroy(), 50);
              return;
            }
          }
        });
        answer.on('end', () => res.end());
      },
    );
    upstream.on('error', () => req.socket.destroy());
    req.pipe(upstream);
  }

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://proxy');
    if (url.pathname.startsWith('/__conformance/')) {
      control(req, res, url).catch((error) => sendJson(req, res, 500, { error: String(error) }));
      return;
    }
    const scenario = req.headers[SCENARIO_HEADER];
    if (typeof scenario === 'string') {
      const seen = requests.get(scenario) ?? [];
      seen.push({
        method: req.method,
        path: url.pathname,
        idempotency_key: req.headers['idempotency-key'] ?? null,
        last_event_id: req.headers['last-event-id'] ?? null,
      });
      requests.set(scenario, seen);
    }
    const fault = faultFor(req, url.pathname);
    if (fault?.respond) {
      const { status, headers = {}, code = 'rate_limited', raw_body: raw } = fault.respond;
      req.resume();
      if (raw !== undefined) {
        res.writeHead(status, { ...corsOf(req), ...headers }).end(raw);
        return;
      }
      res.writeHead(status, { 'content-type': 'application/problem+json', ...corsOf(req), ...headers });
      res.end(
        JSON.stringify({
          type: `/api-platform/problems/${code}`,
          title: 'Injected by the conformance proxy',
          status,
          detail: `fault of scenario ${req.headers[SCENARIO_HEADER]}`,
          instance: 'conformance-proxy',
          code,
        }),
      );
      return;
    }
    forward(req, res, fault);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}`;
  return {
    url: origin,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
        agent.destroy();
      }),
  };
}
