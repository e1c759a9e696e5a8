import { request } from 'node:http';
import { type AddressInfo, createServer } from 'node:net';
import type { Envelope } from './server.js';

export interface UrlReply {
  status: number;
  headers: Headers;
  body: Envelope;
  text: string;
}

/** A JSON call to an absolute URL (for servers the harness did not start, such as a `restlayer serve` process). */
export async function callUrl(url: string, init: { method?: string; token?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<UrlReply> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  let body: string | undefined;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['Content-Type'] = 'application/json';
  }
  const res = await fetch(url, { method: init.method ?? 'GET', headers, body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: text ? (JSON.parse(text) as Envelope) : (undefined as unknown as Envelope) };
}

export interface HeldRequest {
  /** Resolves once the server has read the request head and answered `100 Continue`: the request is in flight. */
  continued: Promise<void>;
  /** Sends the body and resolves with the answer. */
  finish(): Promise<UrlReply>;
}

/**
 * A request that stays in flight as long as the test wants: its head goes out with `Expect: 100-continue`, and its
 * body only when `finish()` is called. Lets a test act (e.g. send SIGTERM) while the server is surely mid-request.
 */
export function heldRequest(url: string, init: { method: string; token?: string; body: unknown }): HeldRequest {
  const payload = Buffer.from(JSON.stringify(init.body));
  const headers: Record<string, string | number> = {
    'Content-Type': 'application/json',
    'Content-Length': payload.length,
    Expect: '100-continue',
  };
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  const req = request(url, { method: init.method, headers, agent: false });
  const answer = new Promise<UrlReply>((resolve, reject) => {
    req.once('error', reject);
    req.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      res.once('error', reject);
      res.once('end', () => {
        const h = new Headers();
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) h.set(name, Array.isArray(value) ? value.join(', ') : value);
        try {
          resolve({ status: res.statusCode!, headers: h, text, body: text ? (JSON.parse(text) as Envelope) : (undefined as unknown as Envelope) });
        } catch (err) {
          reject(err);
        }
      });
    });
  });
  const continued = new Promise<void>((resolve, reject) => {
    req.once('continue', () => resolve());
    answer.catch(reject);
    answer.then(() => reject(new Error('answered before 100 Continue')), () => {});
  });
  req.flushHeaders();
  return {
    continued,
    finish() {
      req.end(payload);
      return answer;
    },
  };
}

/** A TCP port that was free a moment ago (for tests that must choose the port themselves). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}
