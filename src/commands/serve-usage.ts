// Apart from serve.ts, which loads the whole HTTP stack: `hub --help` prints this without it.
export const SERVE_USAGE = `hub serve [--demo [--no-demo-server]]
                          run the API (migrates first); --demo seeds an empty database, prints a key
                          and runs a demo CS2 server (--no-demo-server or DEMO_SERVER=off: without it)`;

export const SERVE_HELP = `Usage: ${SERVE_USAGE}

hub serve migrates the database, then serves the API, the docs and the portal until SIGINT or SIGTERM
(requests in flight finish, buffered counts are written, then it exits).

  --demo             what \`npm start\` runs. An empty database is filled with demo data first, the
                     demo API key is printed, and a demo game server starts: a CS2 server named
                     "Demo CS2 server", registered in the hub, that plays 5v5 matches among the first
                     ten accounts linked to a Steam id (the seeded players) and posts its log, in CS2's
                     own format, to this service's ingest route (POST /api-platform/ingest/logs/<token>),
                     as a real server's logaddress_add_http does. About two kills a second, chat, rounds
                     and a match end every 15 to 30 s: the kill feed, the Elo ladder, the event stream
                     and webhooks move at once. It stops with the service.
  --no-demo-server   with --demo: no demo game server (also DEMO_SERVER=off in the environment).

Environment: PORT, HOST, DATABASE_URL, DEMO_SERVER and the rest listed in the README.`;
