/**
 * A parsed request body as the model reads it, as text: object keys compared case-insensitively (contract part 1:
 * `UserName` and `userName` are one field), so their order and case do not matter; arrays keep their order, and values
 * are kept as sent (text compares case-sensitively). Two requests a model reads alike give the same text, so a repeat
 * of one with its keys reordered or recased is a repeat, not a mismatch.
 *
 * Keys that name one property twice (`status` and `STATUS`) are both kept, sorted by their spelling too: such a
 * body is refused by validation anyway, the text only has to be the same for the same body.
 */
export function canonicalBody(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalBody).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).map(([key, v]) => ({ folded: key.toLowerCase(), key, v }));
    entries.sort((a, b) => compare(a.folded, b.folded) || compare(a.key, b.key));
    return `{${entries.map((e) => `${JSON.stringify(e.folded)}:${canonicalBody(e.v)}`).join(',')}}`;
  }
  // JSON.stringify answers undefined for undefined (never in a parsed body, but keep the text a text).
  return JSON.stringify(value) ?? 'null';
}

/** By UTF-16 code units, as JavaScript sorts strings, with no locale: the same order on every machine. */
const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
