import { Type } from 'typebox';
import { GAMES, StringEnum } from '../../http/schemas.js';

/** Field builders shared by the event definitions, so the same thing reads the same everywhere. */

export const Id = (description: string, example = 1) =>
  Type.Integer({ minimum: 1, description, examples: [example] });

export const UserId = (description = 'Hub user id') => Id(description, 42);

export const Count = (description: string, example = 1) =>
  Type.Integer({ minimum: 0, description, examples: [example] });

export const Text = (description: string, example: string) =>
  Type.String({ description, examples: [example] });

export const Flag = (description: string) => Type.Boolean({ description, examples: [true] });

export const At = (description: string) =>
  Type.String({ format: 'date-time', description, examples: ['2026-11-20T18:04:11.000Z'] });

export type GameCode = (typeof GAMES)[number];

export const Game = () => StringEnum(GAMES, { description: 'Game code', examples: ['cs2'] });

export const SteamId = () =>
  Type.String({ pattern: '^\\d{17}$', description: 'SteamID64', examples: ['76561198000000042'] });
