/**
 * How a CS2 server writes its log to `logaddress_add_http`: `MM/DD/YYYY - HH:MM:SS.mmm - <event>`
 * (no `L `, milliseconds, ` - `), in the server's clock, here UTC, as the README asks of real servers.
 */
const pad = (n: number, width = 2) => String(n).padStart(width, '0');

export function stampLine(at: number, body: string): string {
  const d = new Date(at);
  return (
    `${pad(d.getUTCMonth() + 1)}/${pad(d.getUTCDate())}/${d.getUTCFullYear()} - ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)} - ${body}`
  );
}

export type Side = 'CT' | 'TERRORIST';

/** A connected player as the log names them. */
export interface Participant {
  name: string;
  /** the server's user id of the connection */
  uid: number;
  /** Steam3 id as CS2 writes it: `[U:1:<account id>]` */
  account: string;
}

/** `"Name<uid><[U:1:N]><CT>"`; CS2 leaves the team empty before a player has one. */
export const token = (p: Participant, team: Side | '') => `"${p.name}<${p.uid}><${p.account}><${team}>"`;

/** CS2 writes team switches with a two-field token (no team). */
export const switched = (p: Participant, from: string, to: Side) =>
  `"${p.name}<${p.uid}><${p.account}>" switched from team <${from}> to <${to}>`;
