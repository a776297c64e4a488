// Property-based fuzzing of the customer-service environment's step (episodes.ts says what is
// checked). Its own file so the suite's two heaviest targets run in parallel; episodes are at most
// two replies long because every step re-checks the database against the gold actions (~1 ms).
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { serviceFamily } from '../envs/service/index';
import { fuzzParams } from './arbitraries';
import { episode, play, tasksOf } from './episodes';

describe('fuzz: environment steps', () => {
  it('customer service', async () => {
    const tasks = tasksOf(serviceFamily.generateTask, 30, () => serviceFamily.createEnv().reset(serviceFamily.generateTask(7, 0, 'train')).tools);
    const env = serviceFamily.createEnv();
    await fc.assert(fc.asyncProperty(episode(tasks, 2), ([task, replies]) => play(env, task, replies)), fuzzParams(22));
  });
});
