import { createScanner } from 'jsonc-parser';

/**
 * jsonc-parser's token kinds (its SyntaxKind, stable since its first release), spelled out: SyntaxKind is declared a
 * `const enum`, which a build of isolated modules (the browser app's type check, which reads the layer's sources)
 * cannot read. lib/validation/json-budget.test.ts checks them against the package's own.
 */
export const TOKEN = {
  OpenBrace: 1, CloseBrace: 2, OpenBracket: 3, CloseBracket: 4, Colon: 6, Null: 7, True: 8, False: 9, String: 10, Number: 11, EOF: 17,
} as const;

/**
 * The most one request body may hold (contract part 2: more is a 413 Request_TooLarge): `bytes` as received (after
 * any Content-Encoding is undone), and `items`, its keys and array elements in all. Each route has one (its
 * `maxBody`, or the configuration's defaults: lib/routing/route-access.ts).
 */
export interface BodyLimit {
  readonly bytes: number;
  readonly items: number;
}

/** What a JSON text holds, as far as measureJson read it. */
export interface JsonMeasure {
  /** Keys and array elements counted (at most one past `maxItems`). */
  items: number;
  /** The deepest nesting of objects and arrays seen (at most one past `maxDepth`): `{}` is 1, `{"a":[]}` is 2. */
  depth: number;
}

/**
 * Counts the keys and array elements of a JSON text and how deeply it nests, from its tokens alone (jsonc-parser's
 * scanner: no value is built, no recursion), and stops as soon as either passes its bound. Run before JSON.parse: the
 * parse, the depth and repeated-key checks and validation all cost time linear in what the body holds, on the main
 * thread, so a body over a route's budget is refused having cost one pass over at most `maxItems` of its tokens.
 * The text need not be valid JSON: what is counted is then a bound, and the parse refuses the text after.
 */
export function measureJson(text: string, maxItems: number, maxDepth: number): JsonMeasure {
  const scanner = createScanner(text, true);
  // For each open object or array: whether it is an array (its values are elements; an object's are counted by their keys).
  const inArray: boolean[] = [];
  let items = 0;
  let depth = 0;
  for (let token: number = scanner.scan(); token !== TOKEN.EOF; token = scanner.scan()) {
    switch (token) {
      case TOKEN.OpenBrace:
      case TOKEN.OpenBracket:
        if (inArray[inArray.length - 1]) items++;
        inArray.push(token === TOKEN.OpenBracket);
        depth = Math.max(depth, inArray.length);
        break;
      case TOKEN.CloseBrace:
      case TOKEN.CloseBracket:
        inArray.pop();
        break;
      case TOKEN.Colon:
        items++;
        break;
      case TOKEN.String:
      case TOKEN.Number:
      case TOKEN.True:
      case TOKEN.False:
      case TOKEN.Null:
        if (inArray[inArray.length - 1]) items++;
        break;
      default:
        break;
    }
    if (items > maxItems || depth > maxDepth) break;
  }
  return { items, depth };
}
