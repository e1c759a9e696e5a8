/** A few DOM helpers: elements are built with `h()` and text is always set as text, never parsed as HTML. */

type Child = Node | string | number | null | undefined | false;
type AttrValue = string | number | boolean | null | undefined;
type Attrs = Record<string, AttrValue | ((event: Event) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: (Child | Child[])[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, '').toLowerCase(), value);
    else if (value === true) el.setAttribute(name, '');
    else if (value !== false && value !== null && value !== undefined) el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

export function append(parent: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

let ids = 0;
/** A document-unique id with a readable prefix. */
export const uid = (prefix: string) => `${prefix}-${++ids}`;

/** `<option>`s of a select; `placeholder` adds an empty first option. */
export function options(select: HTMLSelectElement, items: { value: string; text: string }[], placeholder?: string): void {
  select.replaceChildren(
    ...(placeholder !== undefined ? [h('option', { value: '' }, placeholder)] : []),
    ...items.map((item) => h('option', { value: item.value }, item.text)),
  );
}

/** Sets the text of a live region; a region emptied first is announced again even when the text repeats. */
export function announce(region: HTMLElement, text: string): void {
  region.textContent = '';
  if (text) region.append(text);
}

/** Moves focus to an element that is not focusable by itself (a heading, a message box). */
export function focusElement(el: HTMLElement | null | undefined): void {
  if (!el) return;
  if (!el.hasAttribute('tabindex') && !isFocusable(el)) el.setAttribute('tabindex', '-1');
  el.focus();
}

function isFocusable(el: HTMLElement): boolean {
  return el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement
    || el instanceof HTMLButtonElement || (el instanceof HTMLAnchorElement && el.hasAttribute('href'));
}
