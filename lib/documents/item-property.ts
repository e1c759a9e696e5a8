/**
 * The property of one item of an array input, as validation names it (`lines[2].orderQty`, 0-based): business checks
 * of an item report on the same path, so a client finds every problem of a document the same way.
 */
export function itemProperty(array: string, index: number, property?: string): string {
  return property ? `${array}[${index}].${property}` : `${array}[${index}]`;
}
