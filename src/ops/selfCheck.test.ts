import { describe, expect, it } from 'vitest';
import { TEST_ADAPTERS, testRuntime } from '../gpu/testDevice';
import './allChecks';
import { registeredChecks, runSelfCheck } from './selfCheck';

describe.each(TEST_ADAPTERS)('kernel self-check on %s', (adapter) => {
  it('every registered check passes (the same list the page runs)', async () => {
    const rt = await testRuntime(adapter);
    const results = await runSelfCheck(rt);
    expect(results.length).toBe(registeredChecks().length);
    expect(results.filter((r) => !r.ok)).toEqual([]);
  });
});
