// The host-side half of every sandbox run: what the collector accepts, whatever the sandbox sends.
import { describe, expect, it } from 'vitest';
import { messageCaps, RunCollector } from './grade';
import { DEFAULT_SANDBOX_LIMITS, type SandboxTest } from './types';

const TESTS: SandboxTest[] = [
  { entry: 'add', args: [1, 2], expected: 3 },
  { entry: 'add', args: [2, 2], expected: 4 },
];
const LOADED = '{"t":"loaded","ok":true}';
const call = (i: number, text: string) => JSON.stringify({ t: 'call', i, ok: true, plain: true, text });

function collect(messages: string[]): { done: boolean; collector: RunCollector } {
  const collector = new RunCollector(TESTS, DEFAULT_SANDBOX_LIMITS, 'browser', Date.now());
  let done = false;
  for (const m of messages) if (collector.accept(m)) { done = true; break; }
  return { done, collector };
}

describe('RunCollector', () => {
  it('grades a clean run', () => {
    const { done, collector } = collect([LOADED, call(0, '3'), call(1, '4'), '{"t":"returned"}', '{"t":"done"}']);
    expect(done).toBe(true);
    expect(collector.finish({ kind: 'done' })).toMatchObject({ status: 'ok', passed: 2 });
  });

  it('counts nothing when the run returned but then had to be stopped', () => {
    for (const ending of [{ kind: 'timeout' }, { kind: 'memory' }, { kind: 'crashed', error: 'died' }] as const) {
      const { collector } = collect([LOADED, call(0, '3'), call(1, '5'), '{"t":"returned"}']);
      const r = collector.finish(ending);
      expect(r.passed).toBe(0);
      expect(r.tests.map((t) => t.status)).toEqual([ending.kind === 'crashed' ? 'error' : ending.kind, 'failed']);
      expect(r.error).toContain('no test counts');
    }
  });

  it('keeps per-test results when the limit hit during a test', () => {
    const { collector } = collect([LOADED, call(0, '3'), '{"t":"done","stop":"timeout"}']);
    const r = collector.finish({ kind: 'timeout' });
    expect(r.tests.map((t) => t.status)).toEqual(['passed', 'timeout']);
  });

  it('stops a sandbox that sends too much, too many or too long, and clips output itself', () => {
    const caps = messageCaps(TESTS.length, DEFAULT_SANDBOX_LIMITS);
    const long = collect([LOADED, JSON.stringify({ t: 'output', out: 'x'.repeat(caps.maxMessageChars) })]);
    expect(long.done).toBe(true);
    expect(long.collector.finish({ kind: 'done' })).toMatchObject({ status: 'crashed', passed: 0 });
    const many = collect(Array.from({ length: caps.maxMessages + 1 }, () => '{"t":"output","out":"x"}'));
    expect(many.collector.violation).toMatch(/more than \d+ messages/);
    const chatty = collect([LOADED, ...Array.from({ length: 5 }, () => JSON.stringify({ t: 'output', out: 'y'.repeat(3000) }))]);
    const r = chatty.collector.finish({ kind: 'done' });
    expect(r.output.length).toBe(DEFAULT_SANDBOX_LIMITS.maxOutputChars);
    expect(r.outputTruncated).toBe(true);
  });

  it('lets the first report of a test stand and ignores reports for tests it never asked for', () => {
    const { collector } = collect([LOADED, call(0, '9'), call(0, '3'), call(5, '3'), call(-1, '3'), call(1, '4'), '{"t":"returned"}', '{"t":"done"}']);
    const r = collector.finish({ kind: 'done' });
    expect(r.tests.map((t) => t.got)).toEqual(['9', '4']);
    expect(r.passed).toBe(1);
  });

  it('does not call a run that ended without every report a pass', () => {
    const { collector } = collect([LOADED, call(0, '3'), '{"t":"done"}']);
    expect(collector.finish({ kind: 'done' })).toMatchObject({ status: 'crashed', passed: 1 });
  });
});
