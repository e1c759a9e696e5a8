import { RestClient } from '../client/client.js';
import { OperationNotSupportedError } from '../client/errors.js';
import type { ProxyDescription } from '../client/operations.js';
import { applicationRoutes } from '../routing/application-routes.js';
import type { LoadedRoute } from '../routing/load-routes.js';
import type { Application } from '../server.js';
import { validateInput } from '../validation/validate.js';

/** What a proxy sent, for the drift check. */
interface Sent {
  method: string;
  url: URL;
  headers: Headers;
  body?: string;
}

/** A fetch that records each request and answers an empty envelope: the drift check needs no server. */
function recordingFetch() {
  const sent: Sent[] = [];
  const fetchFn: typeof fetch = async (input, init = {}) => {
    sent.push({ method: init.method ?? 'GET', url: new URL(String(input)), headers: new Headers(init.headers), body: typeof init.body === 'string' ? init.body : undefined });
    return new Response('{"messages":[]}', { status: 200, headers: { 'Content-Type': 'application/json' } });
  };
  return { fetch: fetchFn, sent, clear: () => void sent.splice(0) };
}

/** A proxy as the drift check sees it: its description, its methods, and one valid call of each exposed method. */
export interface ProxyUnderTest {
  description: ProxyDescription;
  /** Every method the proxy offers for the interface. */
  methods: string[];
  /** False for a client part that implements only some operations of its service (the token service's refresh). */
  everyMethodIsAnOperation?: boolean;
  samples: Record<string, () => Promise<unknown>>;
}

/** The methods of an object's class (prototype chain up to Object), constructor excluded. */
export function methodsOf(instance: object): string[] {
  const names = new Set<string>();
  for (let proto = Object.getPrototypeOf(instance); proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (name !== 'constructor' && typeof (instance as Record<string, unknown>)[name] === 'function') names.add(name);
    }
  }
  return [...names];
}

const pathPattern = (path: string) =>
  new RegExp('^' + path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:([\w$]+)/g, (_, name: string) => `(?<${name}>[^/]+)`) + '$');

const describe = (r: LoadedRoute) => `${r.route.operation} (${r.verb} ${r.path}, routes/${r.file})`;

/** A JWT that does not expire for an hour (the fake server never checks it). */
function fakeToken(): string {
  const part = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ sub: 'drift', iat: now, exp: now + 3600 })}.signature`;
}

/**
 * Compares what the proxies send with the routes that expose their operations, and answers every disagreement:
 * - a route with an `operation` whose service has no proxy, or whose method the proxy lacks;
 * - a proxy call whose verb, path, path parameters, query string or body the route would not take, or that sends
 *   credentials to an anonymous route / none to a secured one;
 * - a proxy method that is neither exposed by a route nor declared not exposed (or declared so but exposed, or not
 *   rejecting with the not-supported error), and a proxy table entry no route serves.
 * `makeProxies` gets a client whose fetch records each request and answers an empty envelope.
 */
export async function driftProblems(routes: LoadedRoute[], makeProxies: (client: RestClient) => ProxyUnderTest[]): Promise<string[]> {
  const problems: string[] = [];
  const recorder = recordingFetch();
  const client = new RestClient({ BaseAddress: 'http://drift.invalid', BasePath: '', Authorization: true }, { fetch: recorder.fetch, environment: 'node' });
  client.tokens!.setTokens({ accessToken: fakeToken(), refreshToken: 'drift-refresh-token' });
  const proxies = makeProxies(client);
  const exposed = routes.filter((r) => r.route.operation);

  for (const r of exposed) {
    const service = r.route.operation!.split('.')[0];
    if (!proxies.some((p) => p.description.service === service)) problems.push(`${describe(r)} is exposed, but no proxy implements ${service}`);
  }

  for (const proxy of proxies) {
    const { service, operations, notExposed } = proxy.description;
    const mine = exposed.filter((r) => r.route.operation!.startsWith(`${service}.`));
    for (const r of mine) {
      const method = r.route.operation!.slice(service.length + 1);
      if (!proxy.methods.includes(method)) {
        problems.push(`${describe(r)} is exposed, but the ${service} proxy has no method ${method}`);
        continue;
      }
      if (notExposed.includes(method)) problems.push(`${describe(r)} is exposed, but the ${service} proxy declares ${method} not exposed`);
      const sample = proxy.samples[method];
      if (!sample) {
        problems.push(`${describe(r)}: the drift test has no sample call of ${service}.${method}`);
        continue;
      }
      recorder.clear();
      try {
        await sample();
      } catch (err) {
        problems.push(`${describe(r)}: the sample call threw ${(err as Error).message}`);
        continue;
      }
      if (recorder.sent.length !== 1) {
        problems.push(`${describe(r)}: the proxy sent ${recorder.sent.length} requests instead of one`);
        continue;
      }
      const [sent] = recorder.sent;
      if (sent.method !== r.verb) problems.push(`${describe(r)}: the proxy sends ${sent.method}`);
      const match = pathPattern(r.path).exec(sent.url.pathname);
      if (!match) problems.push(`${describe(r)}: the proxy sends to ${sent.url.pathname}`);
      else if (r.route.params) {
        const params = Object.fromEntries(Object.entries(match.groups ?? {}).map(([k, v]) => [k, decodeURIComponent(v)]));
        const checked = validateInput(r.route.params, params);
        if (!checked.ok) problems.push(`${describe(r)}: path parameters refused: ${checked.messages.map((m) => m.message).join(' ')}`);
      }
      if (r.route.query) {
        const checked = r.route.query.parse(sent.url.searchParams);
        if (!checked.ok) problems.push(`${describe(r)}: query string refused: ${checked.messages.map((m) => m.message).join(' ')}`);
      } else if ([...sent.url.searchParams].length) problems.push(`${describe(r)}: the proxy sends a query string the route does not take`);
      if (r.route.body) {
        const checked = validateInput(r.route.body, sent.body === undefined ? undefined : JSON.parse(sent.body));
        if (!checked.ok) problems.push(`${describe(r)}: body refused: ${checked.messages.map((m) => m.message).join(' ')}`);
      } else if (sent.body !== undefined) problems.push(`${describe(r)}: the proxy sends a body the route does not take`);
      const credentials = sent.headers.has('Authorization');
      if (r.route.anonymous && credentials) problems.push(`${describe(r)}: the route is anonymous but the proxy sends credentials`);
      if (!r.route.anonymous && !credentials) problems.push(`${describe(r)}: the route is secured but the proxy sends no credentials`);
    }

    for (const [method, op] of Object.entries(operations)) {
      if (!mine.some((r) => r.route.operation === `${service}.${method}`)) problems.push(`${service}.${method}: the proxy table says ${op.verb} ${op.path}, but no route exposes it`);
    }
    if (proxy.everyMethodIsAnOperation === false) continue;
    for (const method of proxy.methods) {
      const isExposed = mine.some((r) => r.route.operation === `${service}.${method}`);
      if (isExposed) continue;
      if (!notExposed.includes(method)) {
        problems.push(`${service}.${method}: no route exposes it and the proxy does not declare it not exposed`);
        continue;
      }
      recorder.clear();
      const rejection = await (proxy.samples[method]?.() ?? Promise.resolve()).then(() => undefined, (err: unknown) => err);
      const text = `Operation ${service}.${method} is not exposed via REST.`;
      if (!(rejection instanceof OperationNotSupportedError) || rejection.message !== text) problems.push(`${service}.${method}: must reject with "${text}"`);
      if (recorder.sent.length) problems.push(`${service}.${method}: not exposed, yet the proxy sent a request`);
    }
  }
  return problems;
}

/**
 * The drift of one service's proxy: `driftProblems` over the application's routes of that service only (the layer's
 * routes and other services have proxies of their own). An application's test asserts it is empty.
 */
export async function proxyDrift(
  application: Pick<Application, 'routesDir'>, description: ProxyDescription, makeProxy: (client: RestClient) => ProxyUnderTest,
): Promise<string[]> {
  const routes = (await applicationRoutes(application)).filter((r) => r.route.operation?.startsWith(`${description.service}.`));
  if (!routes.length) return [`no route of the application exposes an operation of ${description.service}`];
  return driftProblems(routes, (client) => [makeProxy(client)]);
}
