import { type JSONPath, visit } from 'jsonc-parser';

/**
 * Keys a JSON text gave more than once in one object, compared case-insensitively (request property names match
 * case-insensitively, so `{"status":2,"STATUS":3}` names `status` twice). JSON.parse keeps the last of two equal keys
 * and says nothing, so the text itself is read again with jsonc-parser's visitor, which reports every key as written.
 * `model()` reads the result to refuse such a property instead of silently taking one of its values.
 */
const repeatedKeys = new WeakMap<object, ReadonlySet<string>>();

/** The keys (lower case) that `value`'s JSON text gave more than once, if it came from `noteRepeatedKeys`. */
export function repeatedKeysOf(value: object): ReadonlySet<string> | undefined {
  return repeatedKeys.get(value);
}

interface Frame {
  /** Keys seen so far (lower case); arrays have none. */
  keys?: Set<string>;
  repeated?: Set<string>;
  /** Path of this object, taken when its first repeat is found. */
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
 * Records, for each object of `parsed` (the result of `JSON.parse(text)`), the keys `text` gave it more than once.
 * The text must already be valid JSON and no deeper than the body limit: the visitor recurses.
 */
export function noteRepeatedKeys(text: string, parsed: unknown): void {
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
      const key = name.toLowerCase();
      frame.inRepeat = frame.keys!.has(key);
      if (!frame.inRepeat) frame.keys!.add(key);
      else if (!frame.discarded) {
        frame.path ??= pathOf();
        (frame.repeated ??= new Set()).add(key);
      }
    },
    onObjectEnd: () => {
      const frame = frames.pop()!;
      const target = frame.repeated && objectAt(parsed, frame.path!);
      if (target) repeatedKeys.set(target, frame.repeated!);
    },
    onArrayEnd: () => {
      frames.pop();
    },
  }, { disallowComments: true, allowTrailingComma: false });
}
