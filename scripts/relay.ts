// `npm run relay -- [--host 127.0.0.1] [--port 4003]`: a libp2p circuit-relay-v2 node (WebSocket)
// for the swarm's WebRTC handshake between browsers on different machines. It prints the address to
// give the page ("Relay" field of the swarm panel, or the link's relay). The relay only forwards
// WebRTC offers and answers; tensors go browser to browser. Stop it with Ctrl-C.
import { startRelay } from './lib/relayNode';

const USAGE = `usage: npm run relay -- [--host ADDRESS] [--port N]
  --host  interface to listen on (default 127.0.0.1; 0.0.0.0 for every interface, e.g. a LAN)
  --port  TCP port of the WebSocket listener (default 4003)`;

function parse(argv: string[]): { host: string; port: number } | string {
  const out = { host: '127.0.0.1', port: 4003 };
  for (let i = 0; i < argv.length; i++) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === '--help' || flag === '-h') return USAGE;
    if (value === undefined) return `${flag} needs a value\n${USAGE}`;
    if (flag === '--host') {
      if (!/^[0-9a-fA-F.:]+$/.test(value)) return `--host ${value} is not an IP address\n${USAGE}`;
      out.host = value;
    } else if (flag === '--port') {
      const p = Number(value);
      if (!Number.isInteger(p) || p < 1 || p > 65535) return `--port ${value} is not a port (1 … 65535)\n${USAGE}`;
      out.port = p;
    } else return `unknown flag ${flag}\n${USAGE}`;
    i++;
  }
  return out;
}

async function main(): Promise<number> {
  const args = parse(process.argv.slice(2));
  if (typeof args === 'string') {
    console.log(args);
    return args === USAGE ? 0 : 2;
  }
  let relay;
  try {
    relay = await startRelay(args);
  } catch (e) {
    console.error(`[relay] could not listen on ${args.host}:${args.port}: ${(e as Error).message} (another relay running? try --port)`);
    return 1;
  }
  console.log(`[relay] circuit relay v2 listening; give pages this address:`);
  for (const a of relay.addresses) console.log(a);
  const stop = async () => {
    await relay.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
  setInterval(() => console.log(`[relay] ${relay.connections()} connections`), 60_000).unref();
  return new Promise<number>(() => {}); // until stopped
}

main().then((code) => process.exit(code), (e: unknown) => {
  console.error(`[relay] ${(e as Error).message}`);
  process.exit(1);
});
