import { type Server, type Socket, connect, createServer } from 'node:net';

/**
 * A TCP proxy in front of a real service, so a test can make the service unreachable (stop) and bring it back
 * (start) on the same port without touching the service itself.
 */
export interface TcpProxy {
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
}

export async function tcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  let port = 0;

  const start = () => new Promise<void>((resolve, reject) => {
    server = createServer((client) => {
      const upstream = connect(targetPort, targetHost);
      for (const s of [client, upstream]) {
        sockets.add(s);
        s.on('close', () => sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      port = (server!.address() as { port: number }).port;
      resolve();
    });
  });

  const stop = () => new Promise<void>((resolve) => {
    for (const s of sockets) s.destroy();
    if (!server) return resolve();
    server.close(() => resolve());
    server = undefined;
  });

  await start();
  return { get port() { return port; }, start, stop, close: stop };
}
