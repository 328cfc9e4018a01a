/**
 * What the demo world is made of: the maps and weapon codes of each game, as game servers report
 * them (CS weapon classnames without `weapon_`, Rust item shortnames).
 */
export type WeaponClass = 'rifle' | 'smg' | 'sniper' | 'pistol' | 'shotgun' | 'knife' | 'grenade' | 'melee';

export interface Weapon {
  code: string;
  cls: WeaponClass;
  /** relative frequency among the game's kills */
  weight: number;
  /** chance that a kill with this weapon is a headshot */
  hs: number;
  /** kill distance range in metres */
  range: readonly [number, number];
}

export interface GameDef {
  code: 'cs2' | 'cs16' | 'rust' | 'minecraft';
  title: string;
  maps: readonly string[];
  /** empty for games without a killboard */
  weapons: readonly Weapon[];
  /** highest round number of a match (1 for games without rounds) */
  maxRound: number;
  serverPort: number;
  maxPlayers: readonly number[];
}

const w = (code: string, cls: WeaponClass, weight: number, hs: number, min: number, max: number): Weapon => ({
  code,
  cls,
  weight,
  hs,
  range: [min, max],
});

const CS_COMMON = [
  w('ak47', 'rifle', 22, 0.52, 4, 45),
  w('m4a1', 'rifle', 14, 0.5, 4, 45),
  w('awp', 'sniper', 10, 0.3, 10, 70),
  w('deagle', 'pistol', 7, 0.58, 3, 35),
  w('glock', 'pistol', 5, 0.45, 2, 20),
  w('usp_silencer', 'pistol', 5, 0.5, 2, 25),
  w('p250', 'pistol', 2, 0.45, 2, 20),
  w('mp9', 'smg', 3, 0.35, 2, 20),
  w('ump45', 'smg', 3, 0.35, 2, 22),
  w('famas', 'rifle', 3, 0.42, 4, 35),
  w('galilar', 'rifle', 3, 0.42, 4, 35),
  w('sg556', 'rifle', 2, 0.48, 5, 45),
  w('ssg08', 'sniper', 2, 0.55, 8, 60),
  w('nova', 'shotgun', 1, 0.2, 1, 10),
  w('knife', 'knife', 1.2, 0, 0.8, 1.8),
  w('hegrenade', 'grenade', 1.3, 0, 2, 15),
];

/** Counter-Strike 1.6 names several weapons differently (m4a1 silenced/unsilenced, sg552, usp). */
const CS16_WEAPONS = [
  w('ak47', 'rifle', 24, 0.5, 4, 45),
  w('m4a1', 'rifle', 16, 0.48, 4, 45),
  w('awp', 'sniper', 11, 0.28, 10, 70),
  w('deagle', 'pistol', 8, 0.55, 3, 35),
  w('usp', 'pistol', 6, 0.5, 2, 25),
  w('glock18', 'pistol', 4, 0.42, 2, 20),
  w('mp5navy', 'smg', 5, 0.35, 2, 22),
  w('famas', 'rifle', 2, 0.42, 4, 35),
  w('galil', 'rifle', 2, 0.42, 4, 35),
  w('sg552', 'rifle', 2, 0.45, 5, 45),
  w('scout', 'sniper', 2, 0.5, 8, 60),
  w('m3', 'shotgun', 1.5, 0.2, 1, 10),
  w('knife', 'knife', 1.2, 0, 0.8, 1.8),
  w('hegrenade', 'grenade', 1.3, 0, 2, 15),
];

const RUST_WEAPONS = [
  w('rifle.ak', 'rifle', 22, 0.42, 5, 180),
  w('rifle.lr300', 'rifle', 8, 0.42, 5, 160),
  w('rifle.bolt', 'sniper', 7, 0.5, 40, 320),
  w('rifle.semiauto', 'rifle', 8, 0.4, 5, 140),
  w('smg.mp5', 'smg', 6, 0.33, 3, 60),
  w('smg.thompson', 'smg', 5, 0.33, 3, 60),
  w('pistol.python', 'pistol', 5, 0.45, 3, 50),
  w('pistol.semiauto', 'pistol', 6, 0.4, 3, 45),
  w('pistol.revolver', 'pistol', 4, 0.4, 3, 40),
  w('shotgun.pump', 'shotgun', 6, 0.25, 1, 15),
  w('shotgun.double', 'shotgun', 3, 0.25, 1, 12),
  w('bow.hunting', 'sniper', 7, 0.48, 5, 70),
  w('crossbow', 'sniper', 3, 0.48, 5, 80),
  w('spear.wooden', 'melee', 2, 0.3, 1, 3),
  w('machete', 'knife', 1.5, 0.2, 0.8, 2),
  w('grenade.f1', 'grenade', 1, 0, 2, 20),
];

export const GAMES: readonly GameDef[] = [
  {
    code: 'cs2',
    title: 'Counter-Strike 2',
    maps: [
      'de_dust2',
      'de_mirage',
      'de_inferno',
      'de_nuke',
      'de_ancient',
      'de_anubis',
      'de_vertigo',
      'de_overpass',
    ],
    weapons: CS_COMMON,
    maxRound: 24,
    serverPort: 27015,
    maxPlayers: [10, 12, 20, 32],
  },
  {
    code: 'cs16',
    title: 'Counter-Strike 1.6',
    maps: ['de_dust2', 'de_inferno', 'de_nuke', 'de_train', 'de_aztec', 'cs_office', 'de_cbble', 'cs_italy'],
    weapons: CS16_WEAPONS,
    maxRound: 30,
    serverPort: 27016,
    maxPlayers: [12, 20, 24, 32],
  },
  {
    code: 'rust',
    title: 'Rust',
    maps: ['Procedural Map', 'Barren', 'Hapis Island', 'Craggy Island', 'Savas Island'],
    weapons: RUST_WEAPONS,
    maxRound: 1,
    serverPort: 28015,
    maxPlayers: [100, 150, 200, 300],
  },
  {
    code: 'minecraft',
    title: 'Minecraft',
    maps: ['world', 'survival', 'skyblock', 'creative', 'bedwars'],
    weapons: [],
    maxRound: 1,
    serverPort: 25565,
    maxPlayers: [20, 50, 100],
  },
];

/** The games with a killboard (and kills), in a fixed order used as an index everywhere. */
export const KILL_GAMES = GAMES.filter((g) => g.weapons.length > 0);
/** Share of all kills per kill game (same order as KILL_GAMES). */
export const KILL_SHARE = [0.45, 0.25, 0.3] as const;
/** The games with an ELO ladder. */
