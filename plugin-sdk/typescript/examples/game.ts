import type { HubPlugin, Player, ServerStatus } from '@gaming-hub/plugin-sdk';

/**
 * A simulated game server: what a real game's plugin adapter would wire to the SDK. It has no
 * network code of its own; every report goes through the plugin, and the hub's commands (`say`,
 * `kick`, `status`) change its state.
 */
export interface SimPlayer extends Player {
  team: 'team1' | 'team2';
  kills: number;
}

export class SimulatedGame {
  readonly players = new Map<string, SimPlayer>();
  /** what the server said in chat (from `say`) */
  readonly broadcasts: string[] = [];
  readonly kicked: string[] = [];
  map = 'arena';
  readonly maxPlayers = 16;
  private roundNumber = 0;
  private scores = { team1: 0, team2: 0 };

  constructor(private readonly hub: HubPlugin) {
    hub.command('say', ({ args }) => {
      if (args === '') throw new Error('say what?');
      this.broadcasts.push(args);
      return `said: ${args}`;
    });
    hub.command('kick', ({ args }) => {
      const player = [...this.players.values()].find((p) => p.name === args);
      if (!player) throw new Error(`no player named ${args}`);
      this.leave(player.name);
      this.kicked.push(player.name);
      return `kicked ${player.name}`;
    });
    hub.command('status', () =>
      [...this.players.values()].map((p) => `${p.name} (${p.team}) ${p.kills} kills`).join('\n'),
    );
  }

  /** the heartbeat's view of the server */
  status(): ServerStatus {
    return { players: this.players.size, max_players: this.maxPlayers, map: this.map, version: '1.4.2' };
  }

  join(player: Player, team: 'team1' | 'team2'): void {
    this.players.set(player.name, { ...player, team, kills: 0 });
    this.hub.connect(player);
  }

  leave(name: string): void {
    const player = this.players.get(name);
    if (!player) return;
    this.players.delete(name);
    this.hub.disconnect(identity(player));
  }

  chat(name: string, message: string): void {
    const player = this.players.get(name);
    if (player) this.hub.chat(identity(player), message);
  }

  startRound(): void {
    this.roundNumber++;
    this.hub.send({ type: 'round', action: 'start', round_number: this.roundNumber });
  }

  fight(killerName: string, victimName: string, weapon: string, headshot = false): void {
    const killer = this.players.get(killerName);
    const victim = this.players.get(victimName);
    if (!killer || !victim) return;
    killer.kills++;
    this.hub.send({
      type: 'kill',
      killer: identity(killer),
      victim: identity(victim),
      weapon,
      headshot,
      distance: 12.5,
      round_number: this.roundNumber,
    });
  }

  endRound(winner: 'team1' | 'team2'): void {
    this.scores[winner]++;
    this.hub.send({
      type: 'round',
      action: 'end',
      round_number: this.roundNumber,
      team1_score: this.scores.team1,
      team2_score: this.scores.team2,
      winner,
    });
  }

  endMatch(): void {
    const team = (t: 'team1' | 'team2') =>
      [...this.players.values()].filter((p) => p.team === t).map(identity);
    this.hub.send({
      type: 'match_result',
      map: this.map,
      team1: team('team1'),
      team2: team('team2'),
      team1_score: this.scores.team1,
      team2_score: this.scores.team2,
    });
  }

  /** The examples' four players (Steam ids from `steamBase` on), two a side, and a greeting in chat. */
  seatPlayers(steamBase: bigint): void {
    ['Rusty', 'Naked', 'Builder', 'Raider'].forEach((name, i) =>
      this.join({ name, steam_id: String(steamBase + BigInt(i)) }, i % 2 ? 'team2' : 'team1'),
    );
    this.chat('Rusty', 'gl hf');
  }

  /** Three rounds of a rifle kill (the first a headshot) and a bow kill each, then the match's result. */
  playMatch(): void {
    for (let round = 0; round < 3; round++) {
      this.startRound();
      this.fight('Rusty', 'Naked', 'rifle.ak', round === 0);
      this.fight('Raider', 'Builder', 'bow.hunting');
      this.endRound(round % 2 ? 'team2' : 'team1');
    }
    this.endMatch();
  }

  changeMap(map: string): void {
    this.map = map;
    this.roundNumber = 0;
    this.scores = { team1: 0, team2: 0 };
    this.hub.mapChange(map);
  }
}

/** a player object without the game's own fields */
const identity = (p: SimPlayer): Player => {
  const { team: _team, kills: _kills, ...player } = p;
  return player;
};
