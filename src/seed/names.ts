import { STEAM_ID64_BASE } from '../engines/steam-id.js';
import type { Rng } from './random.js';

const ADJECTIVES = [
  'Silent',
  'Dark',
  'Crimson',
  'Frozen',
  'Rapid',
  'Savage',
  'Lucky',
  'Toxic',
  'Neon',
  'Shadow',
  'Iron',
  'Golden',
  'Wild',
  'Lone',
  'Mad',
  'Swift',
  'Ghost',
  'Cyber',
  'Feral',
  'Atomic',
  'Crazy',
  'Brave',
  'Lazy',
  'Salty',
  'Sneaky',
  'Stormy',
  'Hyper',
  'Mystic',
  'Rogue',
  'Blind',
  'Chill',
  'Angry',
  'Epic',
  'Furious',
  'Grim',
  'Holy',
  'Icy',
  'Jolly',
  'Killer',
  'Mega',
];
const NOUNS = [
  'Sniper',
  'Wolf',
  'Viper',
  'Raven',
  'Falcon',
  'Reaper',
  'Ninja',
  'Tiger',
  'Phantom',
  'Knight',
  'Hunter',
  'Dragon',
  'Fox',
  'Panda',
  'Bear',
  'Cobra',
  'Hawk',
  'Samurai',
  'Pirate',
  'Wizard',
  'Rusher',
  'Camper',
  'Fragger',
  'Lurker',
  'Spray',
  'Flick',
  'Clutch',
  'Nade',
  'Bullet',
  'Blade',
  'Storm',
  'Frost',
  'Blaze',
  'Echo',
  'Pixel',
  'Byte',
  'Golem',
  'Creeper',
  'Nomad',
  'Titan',
];
const HANDLES = [
  's1mple',
  'zywoo',
  'kennys',
  'flusha',
  'olof',
  'device',
  'dupreeh',
  'xyp9x',
  'niko',
  'electronic',
  'headshot',
  'noscope',
  'oneTap',
  'ecoking',
  'pistolpete',
  'ak_only',
  'bhop',
  'ratatata',
  'frag',
  'rush_b',
];
const STYLES = 6;

function styled(rng: Rng): string {
  const adj = rng.pick(ADJECTIVES);
  const noun = rng.pick(NOUNS);
  switch (rng.int(0, STYLES - 1)) {
    case 0:
      return `${adj}${noun}`;
    case 1:
      return `${adj}${noun}${rng.int(1, 999)}`;
    case 2:
      return `xX_${adj}${noun}_Xx`;
    case 3:
      return `${adj.toLowerCase()}_${noun.toLowerCase()}`;
    case 4:
      return `${rng.pick(HANDLES)}${rng.int(1, 9999)}`;
    default:
      return `${noun}Of${adj}${rng.int(10, 99)}`;
  }
}

/** `count` unique, realistic gamer tags. A clash gets a numeric suffix, so the loop always ends. */
export function usernames(rng: Rng, count: number): string[] {
  const taken = new Set<string>();
  const out: string[] = [];
  while (out.length < count) {
    let name = styled(rng);
    if (taken.has(name)) name = `${name}_${out.length.toString(36)}`;
    if (taken.has(name)) continue;
    taken.add(name);
    out.push(name);
  }
  return out;
}

/**
 * SteamID64 of the n-th player (n from 0): the account id grows with n in steps of 7 plus a random
 * offset below 7, so ids look scattered but can never collide.
 */
export function steamId(rng: Rng, n: number): string {
  const account = 40_000_000 + n * 7 + rng.int(0, 6);
  return String(STEAM_ID64_BASE + BigInt(account));
}
