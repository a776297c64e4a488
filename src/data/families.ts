// Name → environment family, for the CLI and tests: the three families of the mix.
import { codingFamily } from '../envs/coding/index';
import { functionCallingFamily } from '../envs/functionCalling/index';
import { serviceFamily } from '../envs/service/index';
import type { EnvFamily } from '../envs/types';
import type { FamilyName } from './synthArgs';

const FAMILIES: Record<FamilyName, EnvFamily> = {
  'function-calling': functionCallingFamily as EnvFamily,
  service: serviceFamily as EnvFamily,
  coding: codingFamily as EnvFamily,
};

/** The family called `name` (names are checked by parseSynthArgs / the FamilyName type). */
export function familyByName(name: FamilyName): EnvFamily {
  return FAMILIES[name];
}

/** All families, in FAMILY_NAMES order. */
export function allFamilies(): EnvFamily[] {
  return Object.values(FAMILIES);
}
