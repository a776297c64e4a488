// The sandbox process's second line of defence, tested on its own: code running in the process's
// OWN realm (what an escape from the vm context would reach) after lockDownChild finds no network,
// no signals, no threads, no child processes and no `require`. A local TCP server counts connections.
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHILD_LOCKDOWN_SOURCE } from './nodeChildSource';
import { NodeSandboxPool } from './nodeSandbox';

let server: Server;
let port = 0;
let connections = 0;

beforeAll(async () => {
  server = createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

function runEscaped(probe: string): Promise<{ stdout: string; stderr: string }> {
  const program = `${CHILD_LOCKDOWN_SOURCE}\nlockDownChild(require);\n${probe}`;
  const child = spawn(process.execPath, ['--experimental-permission', '--no-warnings', '-e', program], { env: {}, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((resolve) => child.on('close', () => resolve({ stdout, stderr })));
}

describe('sandbox process lockdown', () => {
  it('denies network, signals, threads, processes and require to code in the process realm', async () => {
    const attempts = {
      'net.connect': `(await import('node:net')).connect(PORT, '127.0.0.1')`,
      'new net.Socket().connect': `new (await import('node:net')).Socket().connect(PORT, '127.0.0.1')`,
      'net.createServer': `(await import('node:net')).createServer().listen(0)`,
      'http.get': `(await import('node:http')).get('http://127.0.0.1:PORT/')`,
      'tls.connect': `(await import('node:tls')).connect(PORT, '127.0.0.1')`,
      'dgram.send': `(await import('node:dgram')).createSocket('udp4').send('x', PORT, '127.0.0.1')`,
      'dns.lookup': `(await import('node:dns')).lookup('localhost', () => {})`,
      'dns.promises.resolve': `await (await import('node:dns')).promises.resolve('localhost')`,
      'inspector.open': `(await import('node:inspector')).open(0)`,
      'fetch': `await fetch('http://127.0.0.1:PORT/')`,
      'process.kill(ppid)': `process.kill(process.ppid, 0)`,
      'process._debugProcess': `process._debugProcess(process.ppid)`,
      'Worker': `new (await import('node:worker_threads')).Worker('0', { eval: true })`,
      'child_process': `(await import('node:child_process')).execSync('true')`,
      'fs read': `(await import('node:fs')).readFileSync('/etc/hostname')`,
      'require': `require('net')`,
      'redefine connect': `Object.defineProperty((await import('node:net')).Socket.prototype, 'connect', { value: () => 1 })`,
    };
    const probe = `(async () => {
      const results = {};
      ${Object.entries(attempts).map(([name, code]) => `try { ${code.replaceAll('PORT', String(port))}; results[${JSON.stringify(name)}] = 'ALLOWED'; } catch (e) { results[${JSON.stringify(name)}] = 'denied'; }`).join('\n')}
      process.stdout.write(JSON.stringify(results));
      setTimeout(() => process.exit(0), 200); // let any connection that did start reach the server
    })();`;
    const { stdout, stderr } = await runEscaped(probe);
    expect(stderr).toBe('');
    const results = JSON.parse(stdout) as Record<string, string>;
    expect(Object.entries(results).filter(([, v]) => v !== 'denied')).toEqual([]);
    expect(Object.keys(results)).toHaveLength(Object.keys(attempts).length);
    expect(connections).toBe(0);
  });

  it('the in-process RSS watchdog (for hosts without /proc) still stops an ArrayBuffer bomb', async () => {
    const pool = new NodeSandboxPool({ size: 1, watchdog: true });
    try {
      const code = 'function add() { const keep = []; for (;;) { const b = new Uint8Array(2e7); b.fill(1); keep.push(b); } }';
      const r = await pool.run(code, [{ entry: 'add', args: [], expected: 1 }], { timeoutMs: 20_000, memoryMb: 32 });
      expect(r.status).toBe('memory-exceeded');
    } finally {
      pool.close();
    }
  });
});
