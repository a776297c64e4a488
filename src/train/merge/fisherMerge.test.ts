// Fisher merging through the streaming merge: the Fisher diagonals travel tensor for tensor beside
// the models, and a job without them (npm run merge has no task data) is refused with what to do.
import { describe, expect, it } from 'vitest';
import { mergeMethod, mergeOptions } from './methods';
import { mergeModels, memorySink, memorySource } from './mergeStream';

const model = (label: string, a: number[], b: number[]) => memorySource(label, new Map([
  ['a', { shape: [a.length], data: Float32Array.from(a) }],
  ['b', { shape: [b.length], data: Float32Array.from(b) }],
]));

describe('fisher merge, streamed', () => {
  const fisher = mergeMethod('fisher');
  const options = mergeOptions(fisher, 2, { weights: [1, 2] });
  const models = [model('m1', [1, 2], [5]), model('m2', [3, 4], [7])];

  it('merges each tensor with its own Fisher values', async () => {
    const sink = memorySink();
    const importance = [model('F1', [1, 0], [2]), model('F2', [1, 1], [1])];
    await mergeModels({ method: fisher, options, base: null, models, importance, sink });
    // a: j0 (1·1 + 2·3) / 3; j1 only m2 counts → 4; b: (1·2·5 + 2·1·7) / (2 + 2) = 6
    expect([...sink.tensors.get('a')!.data].map((x) => +x.toFixed(5))).toEqual([2.33333, 4]);
    expect([...sink.tensors.get('b')!.data].map((x) => +x.toFixed(5))).toEqual([6]);
  });

  it('refuses a job without Fisher diagonals, or with diagonals of another shape', async () => {
    await expect(mergeModels({ method: fisher, options, base: null, models, sink: memorySink() })).rejects.toThrow(/fisher needs each model's diagonal Fisher.*pipeline merge stage.*merge-table/);
    const wrong = [model('F1', [1, 0], [2]), model('F2', [1, 1, 1], [1])];
    await expect(mergeModels({ method: fisher, options, base: null, models, importance: wrong, sink: memorySink() })).rejects.toThrow(/F2: 'a' is \[3\]/);
  });
});
