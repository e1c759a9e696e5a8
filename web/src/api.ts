import { type ErrorMessage, type LookupItem, LookupProxy, type Output, SessionExpiredError, createClient } from 'restlayer/client';
import { CustomerProxy } from '../../services/customer/customer-proxy.js';
import { SalesOrderProxy } from '../../services/sales-order/sales-order-proxy.js';

/** The API's path on this server, written into index.html by the server that serves it (RestAPI:Path). */
const apiPath = document.querySelector<HTMLMetaElement>('meta[name="restlayer-api-path"]')?.content ?? '';

/**
 * The project's client in cookie mode (RemoteApi:Authorization false): `login` posts to /auth/cookie, the browser
 * keeps the HttpOnly session cookie and sends Origin with changes; a 401 raises Login_SessionExpired.
 */
export const client = createClient({
  ClientName: 'restlayer-web',
  BaseAddress: location.origin,
  BasePath: apiPath,
  Authorization: false,
  RefreshTokenPath: 'auth/refresh',
});
export const salesOrders = new SalesOrderProxy(client);
export const customers = new CustomerProxy(client);
const lookupProxy = new LookupProxy(client);

export const isErrorMessage = (m: ErrorMessage) => m.severity === 'Error' || m.severity === 'Critical';
export const errorsOf = (output: Output<unknown>) => output.messages.filter(isErrorMessage);

/**
 * Runs an API call; answers undefined when the session has ended (SessionExpiredError). The session's
 * `sessionexpired` event has then already switched the app to its login form, so the caller simply stops.
 */
export async function guarded<T extends Output<unknown> | Output<unknown>[]>(call: Promise<T>): Promise<T | undefined> {
  let answer: T;
  try {
    answer = await call;
  } catch (err) {
    if (err instanceof SessionExpiredError) return undefined;
    throw err;
  }
  // An answer of the server (not a network failure) to a secured call: there is a session.
  const outputs: Output<unknown>[] = Array.isArray(answer) ? answer : [answer];
  if (outputs.every((o) => !o.messages.some((m) => m.code.startsWith('Client_')))) sessionEvents.dispatchEvent(new Event('alive'));
  return answer;
}

/** `alive`: a secured call was answered by the server, so the session exists (the cookie itself is HttpOnly). */
export const sessionEvents = new EventTarget();

export interface Lookup {
  items: LookupItem[];
  /** The text of an id (ids compare as text: numbers and strings alike). */
  text(id: string | number | null | undefined): string;
}

export interface Lookups {
  status: Lookup;
  territory: Lookup;
  person: Lookup;
  /** `product`: `attributes` hold `productNumber` and `listPrice`; inactive products are kept on old order lines only. */
  product: Lookup;
}

function lookupOf(items: LookupItem[]): Lookup {
  const byId = new Map(items.map((item) => [String(item.id), item.text]));
  return { items, text: (id) => (id === null || id === undefined ? '—' : byId.get(String(id)) ?? String(id)) };
}

let lookups: Promise<Lookups | ErrorMessage[] | undefined> | undefined;

/**
 * The lookup tables the screens need (`sales-order-status`, `sales-territory`, `sales-person`, `product`), read once per login
 * (LookupProxy revalidates with ETags); messages when one could not be read, undefined when the session ended.
 */
export function loadLookups(): Promise<Lookups | ErrorMessage[] | undefined> {
  return (lookups ??= (async () => {
    const outputs = await guarded(Promise.all(['sales-order-status', 'sales-territory', 'sales-person', 'product'].map((type) => lookupProxy.read(type))));
    if (!outputs) {
      lookups = undefined;
      return undefined;
    }
    const problems = outputs.flatMap((o) => errorsOf(o));
    if (problems.length || outputs.some((o) => !o.result)) {
      lookups = undefined;
      return problems;
    }
    const [status, territory, person, product] = outputs.map((o) => lookupOf(o.result!.table.data));
    return { status, territory, person, product };
  })());
}

/** Forgets the lookup tables (logout, end of session): the next login reads them again. */
export function forgetLookups(): void {
  lookups = undefined;
}
