import './styles.css';
import { type CookieSession, SESSION_EXPIRED_TEXT, SessionExpiredError, type UserInfo } from 'restlayer/client';
import { client, forgetLookups, sessionEvents } from './api.js';
import { type CustomerDraft, customerView } from './customer.js';
import { customersView } from './customers.js';
import { focusElement, h } from './dom.js';
import { loginView } from './login.js';
import { type OrderDraft, orderView } from './order.js';
import { ordersView } from './orders.js';
import { can, setPermissions } from './permissions.js';
import { canonicalHash, parseHash } from './routes.js';
import type { View } from './view.js';

/**
 * The app shell: a hash router over the screens (orders, order, customers, customer, login). Whether there is a
 * session is asked on start (GET /auth/session, which answers anyone); later, when the session ends, the client raises
 * Login_SessionExpired and the login form replaces the screen, keeping the URL hash, so that after the login the
 * user is back where they were (the list with its filters, or the order with its unsaved changes).
 */

const main = document.getElementById('main')!;
const account = document.getElementById('account')!;
const userName = document.getElementById('user-name')!;
const userTenant = document.getElementById('user-tenant')!;
const logoutButton = document.getElementById('logout') as HTMLButtonElement;
const mainNav = document.getElementById('main-nav')!;

/** Per tab: who is logged in (for the header) and the list page to go back to; no secrets (the cookie is HttpOnly). */
const USER_KEY = 'restlayer.user';
const LIST_KEY = 'restlayer.list';
const CUSTOMER_LIST_KEY = 'restlayer.customers';

let view: View | undefined;
let loggedIn = false;
/** Set from the logout button until the next login: a late 401 of a call still in flight is no expiry then. */
let loggedOut = false;
/** Unsaved input of the screen that was showing when the session ended, for the same screen after the next login. */
let kept: { hash: string; data: unknown } | undefined;

/**
 * Who is logged in, in the header; with tenancy on (contract part 12) the session names the caller's tenant too
 * (`tenantId`), shown beside the name; a server without tenancy sends none and nothing is shown.
 */
function showUser(user: Pick<UserInfo, 'name' | 'userName' | 'tenantId'> | undefined): void {
  userName.textContent = user ? `Logged in as ${user.name || user.userName}` : '';
  const tenant = user?.tenantId;
  userTenant.replaceChildren(...(tenant ? [h('span', { class: 'visually-hidden' }, 'Tenant: '), tenant] : []));
  userTenant.hidden = !tenant;
}

/** The user's permissions, and the header's links to the sections they may read (only those are offered). */
function takePermissions(user: UserInfo | undefined): void {
  setPermissions(user);
  const readOf: Record<string, string> = { orders: 'sales-order.read', customers: 'customer.read' };
  for (const link of mainNav.querySelectorAll<HTMLAnchorElement>('a[data-section]')) link.hidden = !can(readOf[link.dataset.section ?? '']);
}

function mount(next: View, focus: boolean): void {
  view?.dispose?.();
  view = next;
  // Log out and the navigation are offered on every screen but the login form.
  account.hidden = next.el.classList.contains('login');
  mainNav.hidden = account.hidden;
  main.replaceChildren(next.el);
  document.title = `${next.title} – restlayer orders`;
  if (focus) next.focus();
}

/** Shows the screen of the current hash (in place when the screen can take it, e.g. a new page of the list). */
function route(focus: boolean): void {
  const parsed = parseHash(location.hash);
  const canonical = canonicalHash(parsed);
  if (canonical && canonical !== location.hash) history.replaceState(history.state, '', canonical);
  const hash = canonical ?? location.hash;
  if (parsed.name === 'orders') sessionStorage.setItem(LIST_KEY, hash);
  if (parsed.name === 'customers') sessionStorage.setItem(CUSTOMER_LIST_KEY, hash);
  markSection(parsed.name.startsWith('customer') ? 'customers' : parsed.name.startsWith('order') ? 'orders' : undefined);
  if (view?.update?.(hash)) return;
  const draft = kept && kept.hash === hash ? kept.data : undefined;
  kept = undefined;
  const customersBack = sessionStorage.getItem(CUSTOMER_LIST_KEY) ?? '#/customers';
  switch (parsed.name) {
    case 'orders':
      return mount(ordersView(hash), focus);
    case 'order':
      return mount(orderView(parsed.id, { backHash: sessionStorage.getItem(LIST_KEY) ?? '#/orders', draft: draft as OrderDraft | undefined }), focus);
    case 'customers':
      return mount(customersView(hash), focus);
    case 'customer':
    case 'customer-new':
      return mount(customerView(parsed.name === 'customer' ? parsed.id : undefined, { backHash: customersBack, draft: draft as CustomerDraft | undefined }), focus);
    default: {
      const heading = h('h1', { tabindex: '-1' }, 'Page not found');
      return mount({
        el: h('section', { class: 'screen' }, heading, h('p', {}, 'There is nothing at this address. ', h('a', { href: '#/orders' }, 'Go to the sales orders'), '.')),
        title: 'Page not found',
        focus: () => focusElement(heading),
      }, focus);
    }
  }
}

/** The header link of the section on screen is marked as the current page. */
function markSection(section: 'orders' | 'customers' | undefined): void {
  for (const link of mainNav.querySelectorAll<HTMLAnchorElement>('a[data-section]')) {
    if (link.dataset.section === section) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

function showLogin(notice?: { kind: 'expired' | 'info'; text: string }): void {
  loggedIn = false;
  takePermissions(undefined);
  showUser(undefined);
  mount(loginView({ notice, onLogin: loggedInAs }), true);
}

function loggedInAs(user: UserInfo): void {
  loggedIn = true;
  loggedOut = false;
  takePermissions(user);
  sessionStorage.setItem(USER_KEY, user.name || user.userName);
  showUser(user);
  view = undefined;
  route(true);
}

// The end of the session, raised once by the client however many calls failed with it.
client.onSessionExpired((error) => {
  forgetLookups();
  if (loggedOut) return;
  const hadSession = loggedIn || sessionStorage.getItem(USER_KEY) !== null;
  const snapshot = view?.snapshot?.();
  kept = snapshot === undefined ? undefined : { hash: location.hash, data: snapshot };
  sessionStorage.removeItem(USER_KEY);
  showLogin(hadSession ? { kind: 'expired', text: error.message } : undefined);
});

sessionEvents.addEventListener('alive', () => {
  loggedIn = true;
});

// A call that failed because the session ended is handled by the event above; nothing else to report.
window.addEventListener('unhandledrejection', (event) => {
  if (event.reason instanceof SessionExpiredError) event.preventDefault();
});

window.addEventListener('hashchange', () => {
  // While the login form shows, the hash only says where to go after the login.
  if (view && main.contains(view.el) && !view.el.classList.contains('login')) route(true);
});

logoutButton.addEventListener('click', async () => {
  loggedOut = true;
  view?.dispose?.();
  logoutButton.disabled = true;
  try {
    await client.logout();
  } finally {
    logoutButton.disabled = false;
  }
  sessionStorage.removeItem(USER_KEY);
  sessionStorage.removeItem(LIST_KEY);
  sessionStorage.removeItem(CUSTOMER_LIST_KEY);
  kept = undefined;
  forgetLookups();
  history.replaceState(history.state, '', '#/orders');
  showLogin({ kind: 'info', text: 'You have logged out.' });
});

// The skip link moves focus without touching the hash, which belongs to the router.
document.getElementById('skip-link')!.addEventListener('click', (event) => {
  event.preventDefault();
  focusElement(main.querySelector<HTMLElement>('h1') ?? main);
});

/**
 * Start: ask the server whose session the cookie is (an anonymous call, so a first visit logs no 401), show the user
 * in the header (also in a tab opened on a deep link) and then the screen of the hash, or the login form.
 */
async function start(): Promise<void> {
  const session = await (client.session as CookieSession).resume();
  const user = session.result;
  const unreachable = session.messages.some((m) => m.code.startsWith('Client_'));
  if (user) {
    loggedIn = true;
    takePermissions(user);
    sessionStorage.setItem(USER_KEY, user.name || user.userName);
    showUser(user);
  } else if (!unreachable) {
    // A tab that had a session says it ended; a first visit just asks to log in.
    const hadSession = sessionStorage.getItem(USER_KEY) !== null;
    sessionStorage.removeItem(USER_KEY);
    return showLogin(hadSession ? { kind: 'expired', text: SESSION_EXPIRED_TEXT } : undefined);
  }
  // Logged in, or the server could not be asked: the screen's own call shows what happens.
  route(false);
}

void start();
