// Name → environment family, for the CLI and tests. The coding family is loaded lazily so that the
// data tools keep working while src/envs/coding is still being written (it reports as missing).
import type { EnvFamily } from '../envs/types';
import { functionCallingFamily } from '../envs/functionCalling/index';
import { serviceFamily } from '../envs/service/index';
import type { FamilyName } from './synthArgs';

// A computed specifier keeps the type checker from requiring the module before it exists.
const CODING_MODULE = '../envs/coding/index';

/** The family called `name`, or null when its module does not exist (yet) or lacks the export. */
export async function loadFamily(name: FamilyName): Promise<EnvFamily | null> {
  if (name === 'function-calling') return functionCallingFamily as EnvFamily;
  if (name === 'service') return serviceFamily as EnvFamily;
  try {
    const module = (await import(/* @vite-ignore */ CODING_MODULE)) as { codingFamily?: EnvFamily };
    return module.codingFamily ?? null;
  } catch (e) {
    // Only "the module is not there yet" means missing; a broken module must fail loudly.
    const code = (e as { code?: unknown }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String((e as Error).message).includes('coding')) return null;
    throw e;
  }
}
