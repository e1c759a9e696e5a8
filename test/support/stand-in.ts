import { type IncomingHttpHeaders, type Server, createServer } from 'node:http';

/** What a stand-in answers every request with. */
export interface StandInAnswer {
  status: number;
  type?: string;
  body: string;
}

export interface StandIn {
  /** Its URL as an API base (`http://127.0.0.1:<port>/api`), for a CLI's `--url`. */
  url: string;
  /** The headers of every request it was sent, in order. */
  seen: IncomingHttpHeaders[];
  close(): Promise<void>;
}

/**
 * An HTTP server on 127.0.0.1 that is not restlayer (a relay, a wrong --url, a gateway): it answers every request
 * with `answer` and keeps what it was sent.
 */
export async function standIn(answer: StandInAnswer): Promise<StandIn> {
  const seen: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(req.headers);
    res.writeHead(answer.status, answer.type ? { 'Content-Type': answer.type } : {}).end(answer.body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}/api`, seen, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
