import { describe, expect, it } from 'vitest';
import { parseBenchArgs } from './benchArgs';

describe('npm run bench arguments', () => {
  it('defaults to both adapters, full repeats, no file', () => {
    expect(parseBenchArgs([])).toEqual({ adapters: ['swiftshader', 'llvmpipe'], quick: false, swarm: false, help: false });
  });

  it('reads --out, --adapter, --quick and --filter (also as --flag=value)', () => {
    expect(parseBenchArgs(['--out', 'b.json', '--adapter', 'llvmpipe', '--quick', '--filter=1024'])).toEqual({
      out: 'b.json', adapters: ['llvmpipe'], quick: true, filter: '1024', swarm: false, help: false,
    });
    expect(parseBenchArgs(['--swarm', '--quick'])).toMatchObject({ swarm: true, quick: true });
    expect(parseBenchArgs(['--adapter=both']).adapters).toEqual(['swiftshader', 'llvmpipe']);
  });

  it('explains bad arguments with the usage', () => {
    expect(() => parseBenchArgs(['--adapter', 'vulkan'])).toThrow(/--adapter takes one of swiftshader, llvmpipe, both, got 'vulkan'[\s\S]*usage:/);
    expect(() => parseBenchArgs(['--out'])).toThrow(/--out needs a value/);
    expect(() => parseBenchArgs(['--fast'])).toThrow(/unknown argument '--fast'/);
  });
});
