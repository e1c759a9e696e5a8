import type { UserInfo } from 'restlayer/client';
import { client, errorsOf } from './api.js';
import { focusElement, h } from './dom.js';
import { type View, field, messageBox } from './view.js';

export interface LoginOptions {
  /** Shown above the form: the end of the session (an alert) or a logout (a status). */
  notice?: { kind: 'expired' | 'info'; text: string };
  onLogin(user: UserInfo): void;
}

/** The login form (cookie login: the client posts to /auth/cookie; the browser keeps the session cookie). */
export function loginView(options: LoginOptions): View {
  const userName = field('login-user', 'User name', h('input', { type: 'text', name: 'username', autocomplete: 'username', autocapitalize: 'none', spellcheck: 'false', required: true }));
  const password = field('login-password', 'Password', h('input', { type: 'password', name: 'password', autocomplete: 'current-password', required: true }));
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Log in');
  const problems = h('div', { class: 'form-messages', id: 'login-messages' });
  const form = h('form', { class: 'card login-form', novalidate: true, 'aria-labelledby': 'login-heading' },
    userName.wrap, password.wrap, problems, h('div', { class: 'actions' }, submit));

  const notice = options.notice
    ? h('div', options.notice.kind === 'expired'
      ? { class: 'message-box warning', role: 'alert', id: 'session-notice' }
      : { class: 'message-box info', role: 'status', id: 'session-notice' }, options.notice.text)
    : null;

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    problems.replaceChildren();
    userName.setError(undefined);
    password.setError(undefined);
    const name = userName.control.value.trim();
    const secret = password.control.value;
    if (!name) userName.setError('Enter your user name.');
    if (!secret) password.setError('Enter your password.');
    if (!name || !secret) {
      focusElement(!name ? userName.control : password.control);
      return;
    }
    submit.disabled = true;
    form.setAttribute('aria-busy', 'true');
    try {
      const output = await client.login(name, secret);
      const errors = errorsOf(output);
      if (output.result && !errors.length) {
        options.onLogin(output.result as UserInfo);
        return;
      }
      // Problems with a field go next to it; the rest (wrong credentials, throttling, network) above the button.
      const general = errors.filter((m) => {
        const target = m.property?.toLowerCase() === 'username' ? userName : m.property?.toLowerCase() === 'password' ? password : undefined;
        target?.setError(m.message);
        return !target;
      });
      if (general.length) problems.replaceChildren(messageBox(general));
      password.control.value = '';
      focusElement(general.length ? password.control : form.querySelector<HTMLElement>('[aria-invalid="true"]'));
    } finally {
      submit.disabled = false;
      form.removeAttribute('aria-busy');
    }
  });

  const el = h('section', { class: 'screen login', 'aria-labelledby': 'login-heading' },
    h('h1', { id: 'login-heading', tabindex: '-1' }, 'Log in to restlayer orders'),
    notice, form);
  return { el, title: 'Log in', focus: () => focusElement(userName.control) };
}
