import type ts from 'typescript';

/** Text inserted into a source file at an offset of the text as it was read. */
export interface Edit {
  readonly at: number;
  readonly insert: string;
}

/**
 * The source after `edits`, applied from the last place back so that each place is where it was found; edits at one
 * place apply in reverse order of listing (the last listed ends up first in the text).
 */
export const applyEdits = (source: string, edits: readonly Edit[]): string =>
  [...edits].sort((a, b) => b.at - a.at).reduce((text, e) => text.slice(0, e.at) + e.insert + text.slice(e.at), source);

/**
 * Items appended at the end of a list literal read by the TypeScript parser (an array's elements, an object's
 * properties): where the list holds one item a line, each on a line of its own with the last one's indent, after any
 * comment ending that line; otherwise on the same line. A trailing comma stays trailing. `pad` pads the items of an
 * empty list (`{ a }`, `[a]`). What `new service` (the modules list) and `migration make` (a proxy's address) write.
 */
export function appendItems(source: string, parsed: ts.SourceFile, list: ts.Node, items: ts.NodeArray<ts.Node>, added: readonly string[], pad = ''): Edit[] {
  const last = items.at(-1);
  if (!last) return [{ at: list.getStart(parsed) + 1, insert: `${pad}${added.join(', ')}${pad}` }];
  const comma = items.hasTrailingComma ? source.indexOf(',', last.end) : -1;
  const start = last.getStart(parsed);
  if (source.slice(list.getStart(parsed), start).includes('\n')) {
    const indent = /^[ \t]*/.exec(source.slice(source.lastIndexOf('\n', start) + 1, start))![0];
    // After a `//` comment that ends the last item's line (it stays with its item); right after the item (or its
    // comma) when anything else follows on the line: a block comment, which may go on for lines, or the list's end.
    const after = comma < 0 ? last.end : comma + 1;
    const lineEnd = source.indexOf('\n', after);
    const rest = source.slice(after, lineEnd < 0 ? source.length : lineEnd);
    const at = lineEnd >= 0 && lineEnd < list.end && /^\s*(\/\/.*)?$/.test(rest.replace(/\r$/, '')) ? lineEnd : after;
    const lines = { at, insert: `${added.map((item) => `\n${indent}${item}`).join(',')}${comma < 0 ? '' : ','}` };
    // The last item's missing comma, right after it: listed after the lines, so that it comes first where both go at one place.
    return comma < 0 ? [lines, { at: last.end, insert: ',' }] : [lines];
  }
  return [comma < 0 ? { at: last.end, insert: `, ${added.join(', ')}` } : { at: comma + 1, insert: ` ${added.join(', ')},` }];
}
