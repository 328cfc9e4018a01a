/**
 * Where a game server runs, as players pick a server: a closed list, so `region` filters are
 * checked like game codes. `unassigned` until the operator sets one (`hub servers add --region`,
 * `hub servers update ID --region`).
 */
export const REGIONS = [
  'unassigned',
  'eu-west',
  'eu-central',
  'eu-north',
  'eu-east',
  'na-east',
  'na-central',
  'na-west',
  'sa-east',
  'asia-east',
  'asia-south',
  'asia-southeast',
  'middle-east',
  'africa',
  'oceania',
] as const;

export type Region = (typeof REGIONS)[number];

export const isRegion = (value: string): value is Region => (REGIONS as readonly string[]).includes(value);
