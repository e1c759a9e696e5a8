import jwt from 'jsonwebtoken';
import { type ClientOptions, type RemoteApi, RestClient } from 'restlayer/client';
import { TEST_KEY, type TestServer } from '../support/server.js';

/** One request as fetch saw it, with the status it got (0 when it failed). */
export interface Sent {
  method: string;
  url: URL;
  headers: Headers;
  body?: string;
  credentials?: RequestCredentials;
  status: number;
  /** The answer's body. */
  text?: string;
}

/** A fetch that passes requests on (to the real fetch unless `answer` is given) and records each of them. */
export function recordingFetch(answer?: (request: Omit<Sent, 'status'>) => Response | Promise<Response>) {
  const sent: Sent[] = [];
  const fetchFn: typeof fetch = async (input, init = {}) => {
    const request = {
      method: init.method ?? 'GET',
      url: new URL(String(input)),
      headers: new Headers(init.headers),
      body: typeof init.body === 'string' ? init.body : undefined,
      credentials: init.credentials,
    };
    const entry: Sent = { ...request, status: 0 };
    sent.push(entry);
    const response = answer ? await answer(request) : await fetch(input, init);
    entry.status = response.status;
    entry.text = await response.clone().text();
    return response;
  };
  return {
    fetch: fetchFn,
    sent,
    /** Requests whose path (below the API prefix) is `path`. */
    to: (path: string) => sent.filter((s) => s.url.pathname.endsWith(path)),
    statuses: () => sent.map((s) => s.status),
    clear: () => void sent.splice(0),
  };
}

/** Client settings for a test server. */
export function settingsFor(server: TestServer, overrides: Partial<RemoteApi> = {}): RemoteApi {
  return {
    ClientName: 'restlayer-client-tests',
    BaseAddress: `http://127.0.0.1:${server.port}`,
    BasePath: server.config.RestAPI.Path,
    Authorization: true,
    RefreshTokenPath: 'auth/refresh',
    ...overrides,
  };
}

export function clientFor(server: TestServer, overrides: Partial<RemoteApi> = {}, options: ClientOptions = {}): RestClient {
  return new RestClient(settingsFor(server, overrides), options);
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (really) until `condition` holds, checking every 25 ms, for at most `limitMs`. */
export async function until(condition: () => boolean, limitMs = 20_000): Promise<void> {
  const end = Date.now() + limitMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await sleep(25);
  }
}

/** The same access token's claims re-signed with an expiry in the past: what the server answers Security_TokenExpired to. */
export function expiredCopy(accessToken: string): string {
  const claims = jwt.decode(accessToken) as Record<string, unknown>;
  const header = jwt.decode(accessToken, { complete: true })!.header;
  const now = Math.floor(Date.now() / 1000);
  return jwt.sign({ ...claims, iat: now - 3600, nbf: now - 3600, exp: now - 600 }, Buffer.from(TEST_KEY, 'base64'), {
    algorithm: 'HS256',
    ...(header.kid ? { keyid: header.kid } : {}),
  });
}
