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
    const lineEnd = source.indexOf('\n', last.end);
    const at = lineEnd < 0 ? list.end - 1 : Math.min(lineEnd, list.end - 1);
    const lines = { at, insert: `${added.map((item) => `\n${indent}${item}`).join(',')}${comma < 0 ? '' : ','}` };
    // The last item's missing comma, right after it: listed after the lines, so that it comes first where both go at one place.
    return comma < 0 ? [lines, { at: last.end, insert: ',' }] : [lines];
  }
  return [comma < 0 ? { at: last.end, insert: `, ${added.join(', ')}` } : { at: comma + 1, insert: ` ${added.join(', ')},` }];
}
