import { type JSONPath, visit } from 'jsonc-parser';
import { SentNumber, noteSentNumbers, parsedExactly } from './sent-numbers.js';

/**
 * Keys a JSON text gave more than once in one object, compared case-insensitively (request property names match
 * case-insensitively, so `{"status":2,"STATUS":3}` names `status` twice). JSON.parse keeps the last of two equal keys
 * and says nothing, so the text itself is read again with jsonc-parser's visitor, which reports every key as written.
 * `model()` reads the result to refuse such a property instead of silently taking one of its values.
 */
const repeatedKeys = new WeakMap<object, ReadonlySet<string>>();

/** The keys (lower case) that `value`'s JSON text gave more than once, if it came from `noteJsonText`. */
export function repeatedKeysOf(value: object): ReadonlySet<string> | undefined {
  return repeatedKeys.get(value);
}

interface Frame {
  /** Keys seen so far (lower case); arrays have none. */
  keys?: Set<string>;
  repeated?: Set<string>;
  /** The key being read, as written. */
  key?: string;
  /** Numbers of this object that JSON.parse did not keep exactly, by key as written (sent-numbers.ts). */
  numbers?: Map<string, SentNumber>;
  /** Path of this object, taken when its first repeat or inexact number is found. */
  path?: JSONPath;
  /** Whether the property being read right now is a repeat: a value nested in it is one JSON.parse may have dropped. */
  inRepeat: boolean;
  /** Inside a repeated property: its objects are not the ones JSON.parse kept, and that property is refused anyway. */
  discarded: boolean;
}

/** The object `path` leads to inside `root`, following own properties only (a `__proto__` key is an own property). */
function objectAt(root: unknown, path: JSONPath): object | undefined {
  let node = root;
  for (const segment of path) {
    if (typeof node !== 'object' || node === null || !Object.hasOwn(node, segment)) return undefined;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return typeof node === 'object' && node !== null ? node : undefined;
}

/**
 * Records, for each object of `parsed` (the result of `JSON.parse(text)`), what `text` says of it that `parsed` does
 * not show: the keys it gave more than once (repeatedKeysOf), and the numbers JSON.parse rounded (sentNumbersOf: the
 * digits of an amount are checked as sent). One walk of the text. It must already be valid JSON, no deeper than the
 * body limit (the visitor recurses) and within the route's budget of keys and elements (lib/http/body.ts).
 */
export function noteJsonText(text: string, parsed: unknown): void {
  if (typeof parsed !== 'object' || parsed === null) return;
  const frames: Frame[] = [];
  const open = (keys?: Set<string>) => {
    const parent = frames[frames.length - 1];
    frames.push({ keys, inRepeat: false, discarded: parent !== undefined && (parent.discarded || parent.inRepeat) });
  };
  visit(text, {
    onObjectBegin: () => open(new Set()),
    onArrayBegin: () => open(),
    onObjectProperty: (name, _offset, _length, _line, _column, pathOf) => {
      const frame = frames[frames.length - 1];
      frame.key = name;
      const key = name.toLowerCase();
      frame.inRepeat = frame.keys!.has(key);
      if (!frame.inRepeat) frame.keys!.add(key);
      else if (!frame.discarded) {
        frame.path ??= pathOf();
        (frame.repeated ??= new Set()).add(key);
      }
    },
    onLiteralValue: (value: unknown, offset, length, _line, _column, pathOf) => {
      if (typeof value !== 'number') return;
      const frame = frames[frames.length - 1];
      // A number of an array (or the body itself), or one JSON.parse did not keep (a repeated property's), is left to its check.
      if (!frame?.keys || frame.discarded || frame.inRepeat) return;
      const written = text.slice(offset, offset + length);
      if (parsedExactly(written, value)) return;
      frame.path ??= pathOf().slice(0, -1);
      (frame.numbers ??= new Map()).set(frame.key!, new SentNumber(written, value));
    },
    onObjectEnd: () => {
      const frame = frames.pop()!;
      const target = (frame.repeated || frame.numbers) && objectAt(parsed, frame.path!);
      if (!target) return;
      if (frame.repeated) repeatedKeys.set(target, frame.repeated);
      if (frame.numbers) noteSentNumbers(target, frame.numbers);
    },
    onArrayEnd: () => {
      frames.pop();
    },
  }, { disallowComments: true, allowTrailingComma: false });
}
