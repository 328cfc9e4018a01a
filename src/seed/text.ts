import type { GameDef } from './games.js';
import type { Rng } from './random.js';

/** Forum categories; the first one receives the guaranteed full page of threads. */
export const FORUM_CATEGORIES = [
  'General Discussion',
  'Counter-Strike 2',
  'Counter-Strike 1.6',
  'Rust',
  'Minecraft',
  'Tournaments',
  'Server Support',
  'Off-Topic',
] as const;

const TITLES = [
  'Best crosshair settings for {map}?',
  'Is the {weapon} overpowered right now?',
  'Looking for a team for the next tournament',
  '{map} smokes and flashes guide',
  'Server lag on {map} tonight',
  'What is your favourite {weapon} spray pattern?',
  'Rate my highlight clip from {map}',
  'How do you practise aim every day?',
  'Ranked is full of smurfs again',
  'Patch notes discussion: {weapon} changes',
  'Anyone up for scrims this weekend?',
  'My first ace with the {weapon}!',
  'Which map should be added to the pool?',
  'Tips for climbing the ELO ladder',
  'Hardware thread: monitors and mice',
  'Bug: {weapon} sound missing on {map}',
];

const OPENERS = [
  'Honestly',
  'Not gonna lie',
  'In my experience',
  'Hot take:',
  'From what I have seen',
  'Yeah,',
];
const BODIES = [
  'the {weapon} feels way better since the last update.',
  'you have to hold the angle on {map} instead of peeking.',
  'practice in deathmatch for 20 minutes before ranked.',
  'the servers have been really stable this week, good job admins.',
  'communication wins more rounds than aim.',
  'I dropped 30 kills on {map} yesterday with the {weapon}.',
  'the eco rounds are where games are won or lost.',
  'lower your sensitivity, it helped me a lot.',
  'we should organise a community cup next month.',
  'check the killboard, the top fraggers all play {map} a lot.',
];
const CLOSERS = ['GG.', 'See you on the server.', 'Thoughts?', '', 'Just my two cents.', '😄', '🔥'];

function fill(template: string, game: GameDef, rng: Rng): string {
  const weapon = game.weapons.length > 0 ? rng.pick(game.weapons).code : 'pickaxe';
  return template.replaceAll('{map}', rng.pick(game.maps)).replaceAll('{weapon}', weapon);
}

export const threadTitle = (rng: Rng, game: GameDef): string => fill(rng.pick(TITLES), game, rng);

export function postContent(rng: Rng, game: GameDef): string {
  const sentences = rng.int(1, 3);
  const parts: string[] = [];
  for (let i = 0; i < sentences; i++) parts.push(`${rng.pick(OPENERS)} ${fill(rng.pick(BODIES), game, rng)}`);
  const closer = rng.pick(CLOSERS);
  return closer ? `${parts.join(' ')} ${closer}` : parts.join(' ');
}

const SEASONS = ['Winter', 'Spring', 'Summer', 'Autumn'];
const EVENTS = ['Clash', 'Cup', 'Showdown', 'Masters', 'Invitational', 'Open', 'Brawl', 'League'];

export const tournamentName = (rng: Rng, game: GameDef, year: number, n: number): string =>
  `${rng.pick(SEASONS)} ${rng.pick(EVENTS)} ${year} #${n} (${game.title})`;

const SERVER_STYLES = [
  'Public',
  'Competitive',
  'Deathmatch',
  'Retake',
  'Casual',
  'Vanilla',
  'Modded',
  'Hardcore',
];
const REGIONS = ['EU', 'NA', 'US East', 'Frankfurt', 'Stockholm', 'Warsaw', 'Chicago', 'Sydney'];

export const serverName = (rng: Rng, game: GameDef, n: number): string =>
  `[${rng.pick(REGIONS)}] Gaming Hub ${game.title} ${rng.pick(SERVER_STYLES)} #${n}`;
