// The conformance run's front door: every language talks to the hub through it. It forwards
// requests unchanged, except that a request naming its scenario (`x-conformance-scenario`) meets
// the faults that scenario declares in clients/conformance/scenarios.json (a 429, a connection
// dropped after the hub answered, a stream cut after N events). Under /__conformance/ it also acts
// as the user in the OAuth consent step and collects webhook deliveries, so a language's scenarios
// need nothing but HTTP and its own library; /__conformance/requests?scenario=NAME lists what the
// proxy saw of a scenario's requests (attempts, Idempotency-Key, Last-Event-ID).
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

const sendJson = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json' });
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
    if (req.method === 'POST' && parts[1] === 'authorize') {
      const { url: authUrl, user } = JSON.parse((await readBody(req)).toString());
      const who = fixture.users[user];
      if (!who) return sendJson(res, 400, { error: `unknown user ${user}` });
      try {
        const callback = await actAsUser(hubUrl, authUrl, who, fixture.oauth_app.redirect_uri);
        return sendJson(res, 200, { callback });
      } catch (error) {
        return sendJson(res, 502, { error: String(error) });
      }
    }
    if (req.method === 'GET' && parts[1] === 'requests') {
      return sendJson(res, 200, { requests: requests.get(url.searchParams.get('scenario')) ?? [] });
    }
    if (req.method === 'POST' && parts[1] === 'inbox' && parts.length === 2) {
      const id = randomUUID();
      inboxes.set(id, { deliveries: [], waiters: [] });
      return sendJson(res, 201, { id, url: `${origin}/__conformance/inbox/${id}` });
    }
    const inbox = parts[1] === 'inbox' ? inboxes.get(parts[2] ?? '') : undefined;
    if (!inbox) return sendJson(res, 404, { error: 'unknown control route or inbox' });
    if (req.method === 'POST') {
      // a webhook delivery from the hub: kept byte for byte (as a string) with its headers
      inbox.deliveries.push({ headers: req.headers, body: (await readBody(req)).toString('utf8') });
      for (const wake of inbox.waiters.splice(0)) wake();
      res.writeHead(204).end();
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
    return sendJson(res, 200, { deliveries: inbox.deliveries });
  }

  function forward(req, res, fault) {
    const headers = { ...req.headers, host: hub.host };
    delete headers[SCENARIO_HEADER];
    const upstream = http.request(
      { host: hub.hostname, port: hub.port, method: req.method, path: req.url, headers, agent },
      (answer) => {
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
      control(req, res, url).catch((error) => sendJson(res, 500, { error: String(error) }));
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
        res.writeHead(status, headers).end(raw);
        return;
      }
      res.writeHead(status, { 'content-type': 'application/problem+json', ...headers });
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
