// The attack list of issue 13 against the Node back-end, most of them verbatim: each must fail to
// escape, and must not change what the NEXT, unrelated run reports.
import { afterAll, describe, expect, it } from 'vitest';
import { CodingEnv } from '../env';
import { closeNodeSandbox, NodeSandboxPool, runInNodeSandbox } from './nodeSandbox';
import type { SandboxTest } from './types';

const ADD: SandboxTest[] = [
  { entry: 'add', args: [1, 2], expected: 3 },
  { entry: 'add', args: [2, 2], expected: 4 },
  { entry: 'add', args: [0.1, 0.2], expected: 0.3 },
];
const GOOD = 'function add(a, b) { return a + b; }';

/** Two unrelated correct submissions after an attack must pass. */
async function expectNextRunsHealthy(pool?: NodeSandboxPool): Promise<void> {
  for (let i = 0; i < 2; i++) {
    const r = pool ? await pool.run(GOOD, ADD) : await runInNodeSandbox(GOOD, ADD);
    expect(r.tests.map((t) => t.message)).toEqual(['add(1, 2) returned 3 as expected', 'add(2, 2) returned 4 as expected', 'add(0.1, 0.2) returned 0.30000000000000004 as expected']);
    expect(r.status).toBe('ok'); // not 'timeout': nothing left behind by the attack runs here
  }
}

/** The issue's escape: the rejection of import() carried the host realm's Function constructor. */
const ESCAPE = `import('x').catch(e => {
  let report;
  try {
    const F = e.constructor.constructor;
    const p = F('return process')();
    report = 'ESCAPED ' + typeof p;
    ATTACK
  } catch (err) { report = 'blocked: ' + String(err && err.name) + ': ' + String(err && err.message) + ' / rejection: ' + typeof e; }
  console.log(report);
});`;

function escapeWith(attack: string): string {
  return `${ESCAPE.replace('ATTACK', attack)}\n${GOOD}`;
}

afterAll(() => closeNodeSandbox());

describe('node sandbox: the attack list of issue 13', () => {
  it("import('x').catch(e => e.constructor.constructor('return process')()) finds no process", async () => {
    const r = await runInNodeSandbox(escapeWith(''), ADD);
    expect(r.passed).toBe(3);
    expect(r.output).toContain('blocked: ReferenceError: process is not defined / rejection: string');
    expect(r.output).not.toContain('ESCAPED');
    // Every other way of reaching import(): eval, the Function constructor, async functions.
    const forms = ['eval("import(\'fs\')")', '(0, eval)("import(\'fs\')")', 'new Function("return import(\'fs\')")()', '(async () => import("fs"))().then((x) => x)'];
    const code = `${forms.map((f, i) => `${f}.then(() => console.log(${i}, 'LOADED'), (e) => console.log(${i}, typeof e, (() => { try { return e.constructor.constructor('return typeof process + typeof require')() === 'undefinedundefined' ? 'undefined' : 'LEAK' } catch (x) { return x.name } })()));`).join('\n')}\n${GOOD}`;
    const all = await runInNodeSandbox(code, ADD);
    expect(all.output.trim().split('\n').sort()).toEqual(['0 string undefined', '1 string undefined', '2 string undefined', '3 string undefined']);
  });

  it('patching process.send cannot make the next two correct submissions report got=999', async () => {
    const attack = `const send = p.send.bind(p);
      p.send = (m, ...rest) => { if (m && m.ms) m.ms = m.ms.map((s) => s.replace(/"text":"[^"]*"/, '"text":"999"')); return send(m, ...rest); };
      p.stdout.write = () => true;`;
    const r = await runInNodeSandbox(escapeWith(attack), ADD);
    expect(r.output).toContain('blocked');
    expect(r.tests.every((t) => t.got !== '999')).toBe(true);
    await expectNextRunsHealthy();
  });

  it('a setTimeout(() => { for (;;) {} }) left behind cannot make the next correct submission time out', async () => {
    const viaEscape = escapeWith("F('return setTimeout')()(() => { for (;;) {} }, 10);");
    const direct = `try { setTimeout(() => { for (;;) {} }, 10) } catch (e) { console.log(e.name) }\n${GOOD}`;
    const viaGlobal = `try { globalThis.constructor.constructor('return setTimeout')()(() => { for (;;) {} }, 10) } catch (e) { console.log(e.name) }\n${GOOD}`;
    for (const code of [viaEscape, direct, viaGlobal]) {
      const r = await runInNodeSandbox(code, ADD);
      expect(r.passed).toBe(3);
      expect(r.output).not.toContain('ESCAPED');
    }
    await expectNextRunsHealthy();
  });

  it('40 MB sent through IPC, console or a result cannot get past the output caps', async () => {
    const viaEscape = escapeWith(`const send = p.send.bind(p);
      p.send = (m, ...rest) => { if (m && m.ms) m.ms.unshift('{"t":"output","out":"' + 'x'.repeat(4e7) + '"}'); return send(m, ...rest); };`);
    const r = await runInNodeSandbox(viaEscape, ADD);
    expect(r.output.length).toBeLessThan(4000);
    const big = await runInNodeSandbox('const s = "x".repeat(4e7); console.log(s); function add(a, b) { console.log(s); return s }', ADD, { memoryMb: 512, timeoutMs: 20_000 }); // the caps are under test, not the time: a loaded machine is slow to copy 40 MB
    expect(big.output.length).toBeLessThanOrEqual(4000);
    expect(big.outputTruncated).toBe(true);
    expect(big.tests[0].got!.length).toBeLessThan(400);
    expect(big.passed).toBe(0);
  });

  it("net.connect('127.0.0.1', 9) is unreachable from the code", async () => {
    const r = await runInNodeSandbox(escapeWith("const net = F('return require')()('net'); net.connect(9, '127.0.0.1');"), ADD);
    expect(r.output).toContain('blocked');
    const direct = await runInNodeSandbox('function add() { return typeof require + typeof process + typeof fetch + typeof WebSocket }', ADD.slice(0, 1));
    expect(direct.tests[0].got).toBe('"undefinedundefinedundefinedundefined"');
  });

  it('Promise.resolve().then(() => { while (true) {} }); return x + 1 does not pass, and is stopped soon after the tests', async () => {
    const code = 'function inc(x) { Promise.resolve().then(() => { while (true) {} }); return x + 1 }';
    const tests = [{ entry: 'inc', args: [1], expected: 2 }, { entry: 'inc', args: [5], expected: 6 }];
    const r = await runInNodeSandbox(code, tests, { timeoutMs: 5000 });
    expect(r.status).toBe('timeout');
    expect(r.passed).toBe(0);
    expect(r.tests.map((t) => t.status)).toEqual(['timeout', 'timeout']);
    expect(r.tests[0].message).toContain('returned 2 as expected, but the code kept running after its tests returned');
    expect(r.error).toContain('no test counts');
    expect(r.durationMs).toBeLessThan(2000); // stopped by the settle window, not the 5 s limit

    // The coding environment pays nothing for the tests of such a submission.
    const env = new CodingEnv({ sandbox: runInNodeSandbox, sandboxLimits: { timeoutMs: 5000 } });
    env.reset({ id: 't', family: 'coding', split: 'train', template: 'x', level: 1, entry: 'inc', signature: 'inc(x)', statement: 'add one', publicTests: [], hiddenTests: [{ args: [1], expected: 2 }] } as never);
    const step = await env.step(`<tool_call>{"name": "submit", "arguments": {"code": ${JSON.stringify(code)}}}</tool_call>`);
    expect(step.reward.components).toMatchObject({ tests_passed: 0, success: 0 });
    expect(step.reward.total).toBeLessThanOrEqual(0.2 + 1e-9);
  });

  it('leftover work of every other shape does not count either: microtask chains, async loops, memory', async () => {
    const shapes = [
      'function add(a, b) { const spin = () => Promise.resolve().then(spin); spin(); return a + b }',
      '(async () => { for (;;) await null })();\nfunction add(a, b) { return a + b }',
      'function add(a, b) { Promise.resolve().then(() => { const keep = []; for (;;) keep.push(new Array(1e5).fill(1)) }); return a + b }',
    ];
    for (const code of shapes) {
      const r = await runInNodeSandbox(code, ADD, { timeoutMs: 5000, memoryMb: 32 });
      expect(r.passed, code).toBe(0);
      expect(['timeout', 'memory-exceeded']).toContain(r.status);
      expect(r.durationMs).toBeLessThan(4000);
    }
    // Finite promise work that ends at once is fine.
    const ok = await runInNodeSandbox('function add(a, b) { Promise.resolve().then(() => console.log("later")); return a + b }', ADD);
    expect(ok).toMatchObject({ status: 'ok', passed: 3 });
    expect(ok.output).toBe('later\nlater\nlater\n');
  });
});

/** A stand-in sandbox process: says ready, reads the job, then runs `onJob` (source text). */
function hostile(onJob: string): string {
  return `process.stdout.write('{"t":"ready"}\\n'); process.stdin.on('data', () => {}); process.stdin.on('end', () => { ${onJob} });`;
}

describe('node sandbox: one process per run, limits enforced by the host', () => {
  it('never reuses a process, even within one pool of size 1', async () => {
    // Reports its pid as the result of every test.
    const pool = new NodeSandboxPool({ size: 1, program: hostile(`process.stdout.write('{"t":"loaded","ok":true}\\n{"t":"call","i":0,"ok":true,"plain":true,"text":"' + process.pid + '"}\\n{"t":"returned"}\\n{"t":"done"}\\n');`) });
    try {
      const pids = new Set<string>();
      for (let i = 0; i < 4; i++) pids.add((await pool.run('x', ADD.slice(0, 1))).tests[0].got!);
      expect(pids.size).toBe(4);
    } finally {
      pool.close();
    }
  });

  it('a host too busy to read in time does not turn an honest run into a timeout', async () => {
    const pool = new NodeSandboxPool({ size: 1 });
    try {
      await pool.run(GOOD, ADD); // starts the next process ahead
      const run = pool.run(GOOD, ADD, { timeoutMs: 200 });
      await new Promise((resolve) => setImmediate(resolve)); // the job is on its way
      const t0 = Date.now();
      while (Date.now() - t0 < 1500) {
        // busy host: the deadline (200 + 500 ms) and the settle window pass before a line is read
      }
      const r = await run;
      expect(r).toMatchObject({ status: 'ok', passed: 3 });
    } finally {
      pool.close();
    }
  });

  it('stops a process that floods, forges, spins or grows, whatever it claims', async () => {
    const cases: { name: string; onJob: string; check: (r: Awaited<ReturnType<NodeSandboxPool['run']>>) => void }[] = [
      {
        name: '40 MB in one message',
        onJob: `process.stdout.write('{"t":"output","out":"' + 'x'.repeat(4e7) + '"}\\n');`,
        check: (r) => {
          expect(r.status).toBe('crashed');
          expect(r.error).toMatch(/sent a message of \d+ characters/);
          expect(r.output.length).toBeLessThanOrEqual(4000);
        },
      },
      {
        name: '100 000 small messages',
        onJob: `process.stdout.write('{"t":"output","out":"x"}\\n'.repeat(1e5));`,
        check: (r) => expect(r.error).toMatch(/more than \d+ messages/),
      },
      {
        name: 'forged extra and repeated results',
        onJob: `process.stdout.write(['{"t":"loaded","ok":true}', '{"t":"call","i":0,"ok":true,"plain":true,"text":"4"}', '{"t":"call","i":0,"ok":true,"plain":true,"text":"3"}', '{"t":"call","i":7,"ok":true,"plain":true,"text":"3"}', '{"t":"returned"}', '{"t":"done"}'].join('\\n') + '\\n');`,
        check: (r) => {
          expect(r.tests[0]).toMatchObject({ status: 'failed', got: '4' }); // the first report wins
          expect(r.status).toBe('crashed'); // tests 1 and 2 never reported
        },
      },
      {
        name: 'spins after returning',
        onJob: `process.stdout.write('{"t":"loaded","ok":true}\\n' + [0, 1, 2].map((i) => '{"t":"call","i":' + i + ',"ok":true,"plain":true,"text":"' + [3, 4, 0.3][i] + '"}').join('\\n') + '\\n{"t":"returned"}\\n'); for (;;) {}`,
        check: (r) => {
          expect(r).toMatchObject({ status: 'timeout', passed: 0 });
          expect(r.durationMs).toBeLessThan(2000);
        },
      },
      {
        name: 'ignores the time limit',
        onJob: 'for (;;) {}',
        check: (r) => {
          expect(r.status).toBe('timeout');
          expect(r.durationMs).toBeLessThan(3000); // the host deadline (300 + 500 ms), not never
        },
      },
      {
        name: 'grows outside the V8 heap',
        onJob: 'const keep = []; for (;;) keep.push(Buffer.alloc(1 << 24, 1));',
        check: (r) => expect(r.status).toBe('memory-exceeded'),
      },
    ];
    for (const c of cases) {
      const pool = new NodeSandboxPool({ size: 1, program: hostile(c.onJob) });
      try {
        const r = await pool.run('x', ADD, { timeoutMs: c.name === 'ignores the time limit' ? 300 : 5000, memoryMb: 32 });
        c.check(r);
      } finally {
        pool.close();
      }
    }
  });
});
