import { type Server, type Socket, connect, createServer } from 'node:net';

/**
 * A TCP proxy in front of a real server that lets the first `drops` requests reach the server and then cuts the
 * connection the moment the answer starts to come back: the server did the work, the client never hears of it (a
 * dropped connection after the request was processed). Later connections pass through untouched.
 */
export interface ResponseDropper {
  port: number;
  /** How many answers were cut off so far. */
  dropped(): number;
  close(): Promise<void>;
}

export async function responseDropper(targetHost: string, targetPort: number, drops = 1): Promise<ResponseDropper> {
  const sockets = new Set<Socket>();
  let dropped = 0;
  const server: Server = createServer((client) => {
    const upstream = connect(targetPort, targetHost);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => s.destroy());
    }
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      if (dropped < drops) {
        dropped++;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  return {
    port: (server.address() as { port: number }).port,
    dropped: () => dropped,
    close: () => new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}
