import type { LookupCache } from '../lookup/lookup-cache.js';
import type { LookupItem } from '../lookup/lookup-table.js';
import type { Storage } from '../storage/storage.js';
import type { LookupDeclaration, LookupEntry } from './declaration.js';
import { DeclarationError } from './model.js';

type Declared = { readonly [type: string]: LookupDeclaration };

/** An entry as `GET /lookup-table/{type}` answers it: active unless it says not, attributes an object. */
const itemOf = (entry: LookupEntry): LookupItem =>
  ({ id: entry.id, text: entry.text, isActive: entry.isActive ?? true, attributes: { ...entry.attributes } });

/** When the resource is declared: each table gives its entries or a loader (one of them), and its ids are unique. */
export function checkLookups(owner: string, lookups: Declared = {}): void {
  for (const [type, table] of Object.entries(lookups)) {
    if ((table.entries === undefined) === (table.load === undefined)) {
      throw new DeclarationError(owner, `lookup table ${type}: give its entries or a load function, one of them`);
    }
    const ids = (table.entries ?? []).map((e) => (typeof e.id === 'string' && !table.caseSensitive ? e.id.toLowerCase() : e.id));
    const twice = ids.find((id, i) => ids.indexOf(id) !== i);
    if (twice !== undefined) throw new DeclarationError(owner, `lookup table ${type}: the id ${String(twice)} is given twice`);
  }
}

/**
 * Registers a resource's lookup tables with the process-wide cache; a loader reads the store each time its table
 * loads. A type registered already (the layer's, a module's, another resource's; names match ignoring case) stops
 * the start: which one would be served would depend on the order of the modules.
 */
export function registerLookups(cache: LookupCache, storage: Storage, lookups: Declared = {}, owner = 'a resource'): void {
  for (const [type, table] of Object.entries(lookups)) {
    const taken = cache.typeOf(type);
    if (taken) throw new DeclarationError(owner, `lookup table ${type}: a table ${taken} is registered already (by the layer, a module or another resource)`);
    cache.register(type, async () => ({ type, caseSensitive: table.caseSensitive ?? false, data: (table.entries ?? await table.load!(storage)).map(itemOf) }));
  }
}
