/**
 * Characters a terminal acts on rather than shows: C0 controls (ESC starts the ANSI sequences that move the cursor
 * and erase lines), DEL, C1 controls (U+009B is a one-character CSI), the line and paragraph separators, and the
 * bidirectional overrides and isolates that reorder what follows them.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/gu;

/** Whether `text` holds a character `printable` would escape. */
export const hasControlCharacters = (text: string): boolean => new RegExp(CONTROL.source, 'u').test(text);

/**
 * `text` as it can go into a line a person reads on a terminal: each control character written as an escape
 * (`\x1b`, `\n`, `\u202e`), everything else as is. A user named with ANSI escapes must not erase or rewrite the
 * lines around it.
 */
export function printable(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.codePointAt(0)!;
    if (c === '\n') return '\\n';
    if (c === '\t') return '\\t';
    if (c === '\r') return '\\r';
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/**
 * A line for a person (a template literal tag): the values put into it go through `printable`, the template's own
 * text does not; a newline ends it. `--json` output is never made with it: JSON escapes what it must by itself.
 */
export function line(strings: TemplateStringsArray, ...values: unknown[]): string {
  return strings.reduce((out, s, i) => out + s + (i < values.length ? printable(String(values[i])) : ''), '') + '\n';
}
