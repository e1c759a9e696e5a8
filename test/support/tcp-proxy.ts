import { type Server, type Socket, connect, createServer } from 'node:net';

/**
 * What the proxy does to traffic:
 * - `pass`: forwards both ways (flows frozen earlier stay dead, like flows a NAT or firewall dropped);
 * - `refuse`: no listener (connections refused), and existing flows are closed;
 * - `reset`: existing flows and every new connection are reset (RST);
 * - `blackhole`: accepts connections and forwards nothing, on new and existing flows alike;
 * - `freeze`: existing flows forward nothing from now on, for good; new connections pass.
 * - `freeze-subscribers` (Redis): flows that send SUBSCRIBE forward nothing from then on, for good (those that did
 *   already, at once); other flows pass. Commands work, pub/sub never delivers.
 */
export type ProxyMode = 'pass' | 'refuse' | 'reset' | 'blackhole' | 'freeze' | 'freeze-subscribers';

/**
 * A TCP proxy in front of a real service, so a test can inject network faults (see ProxyMode) on the same port
 * without touching the service itself.
 */
export interface TcpProxy {
  port: number;
  /** Connections accepted so far (a count of the work the service's clients did to reconnect). */
  readonly accepted: number;
  mode(mode: ProxyMode): Promise<void>;
  /** refuse */
  stop(): Promise<void>;
  /** pass */
  start(): Promise<void>;
  close(): Promise<void>;
}

interface Flow {
  client: Socket;
  upstream?: Socket;
  frozen: boolean;
  /** The client sent a Redis SUBSCRIBE on this flow. */
  subscriber: boolean;
}

const SUBSCRIBE = /subscribe/i;

export async function tcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const flows = new Set<Flow>();
  let server: Server | undefined;
  let port = 0;
  let current: ProxyMode = 'pass';
  let accepted = 0;

  const reset = (s: Socket | undefined) => {
    if (s && !s.destroyed) s.resetAndDestroy();
  };
  const accept = (client: Socket) => {
    accepted++;
    if (current === 'reset') return reset(client);
    const flow: Flow = { client, frozen: current === 'blackhole', subscriber: false };
    flows.add(flow);
    client.on('error', () => client.destroy());
    client.on('close', () => {
      flows.delete(flow);
      flow.upstream?.destroy();
    });
    if (flow.frozen) return;
    const upstream = connect(targetPort, targetHost);
    flow.upstream = upstream;
    upstream.on('error', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    // Data is forwarded by hand rather than piped, so a frozen flow drops it (nothing ever arrives) instead of buffering.
    client.on('data', (chunk: Buffer) => {
      if (SUBSCRIBE.test(chunk.toString('latin1'))) {
        flow.subscriber = true;
        if (current === 'freeze-subscribers') flow.frozen = true;
      }
      if (!flow.frozen) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => flow.frozen || client.write(chunk));
  };

  const listen = () => new Promise<void>((resolve, reject) => {
    if (server) return resolve();
    const s = createServer(accept);
    server = s;
    s.once('error', reject);
    s.listen(port, '127.0.0.1', () => {
      port = (s.address() as { port: number }).port;
      resolve();
    });
  });
  const unlisten = () => new Promise<void>((resolve) => {
    const s = server;
    server = undefined;
    if (!s) return resolve();
    s.close(() => resolve());
  });

  const mode = async (next: ProxyMode) => {
    current = next;
    for (const flow of flows) {
      if (next === 'refuse') {
        flow.client.destroy();
        flow.upstream?.destroy();
      } else if (next === 'reset') {
        reset(flow.client);
        reset(flow.upstream);
      } else if (next === 'blackhole' || next === 'freeze' || (next === 'freeze-subscribers' && flow.subscriber)) {
        flow.frozen = true;
      }
    }
    if (next === 'refuse') await unlisten();
    else await listen();
  };

  await listen();
  return {
    get port() { return port; },
    get accepted() { return accepted; },
    mode,
    start: () => mode('pass'),
    stop: () => mode('refuse'),
    close: async () => {
      await mode('refuse');
      for (const flow of flows) flow.upstream?.destroy();
    },
  };
}
