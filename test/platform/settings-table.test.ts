import { expect } from 'chai';
import { environmentOnlySettings as environmentOnly, settingsSchema as schema } from 'restlayer';
import { readDoc, splitList, tableRows } from '../support/markdown.js';

/**
 * docs/configuration.md's settings table against the convict schema: every key of one is in the other, once, with the schema's
 * default. A row may name several keys (`A:B:C`, `D` is `A:B:C` and `A:B:D`) and then lists their defaults in the
 * same order, comma-separated; a default may be followed by a remark in parentheses. Keys read only from the
 * environment say `(env only)`, a default of null says `unset`, an empty string or list is left blank.
 */

type Leaf = { doc: string; default: unknown };
const isLeaf = (node: object): node is Leaf => 'doc' in node && 'default' in node;

function schemaDefaults(node: object, prefix: string[] = []): Map<string, unknown> {
  const found = new Map<string, unknown>();
  for (const [name, child] of Object.entries(node)) {
    const path = [...prefix, name];
    if (isLeaf(child)) found.set(path.join(':'), child.default);
    else for (const [key, value] of schemaDefaults(child as object, path)) found.set(key, value);
  }
  return found;
}

/** How the table writes a default of the schema. */
function written(value: unknown): string {
  if (value === null) return 'unset';
  if (Array.isArray(value)) return value.join(', ');
  // A map (Authorization:Roles): `name: entry, entry; name: entry`.
  if (typeof value === 'object') return Object.entries(value).map(([name, v]) => `${name}: ${written(v)}`).join('; ');
  return String(value);
}

const unquote = (text: string) => text.replace(/`/g, '').trim();

/** The keys of a row and the default the table gives each, as written (remarks dropped). */
function rowEntries([keyCell, defaultCell]: string[]): { key: string; written: string }[] {
  const names = splitList(keyCell).map(unquote);
  const parent = names[0].split(':').slice(0, -1).join(':');
  const keys = names.map((name, i) => (i === 0 || name.includes(':') ? name : `${parent}:${name}`));
  const defaults = splitList(defaultCell).map((d) => (/^\(.*\)$/.test(d) ? d : unquote(d.replace(/\s*\(.*\)$/, ''))));
  if (defaults.length !== keys.length) throw new Error(`the row of ${keys.join(', ')} gives ${defaults.length} default(s) for ${keys.length} key(s): "${defaultCell}"`);
  return keys.map((key, i) => ({ key, written: defaults[i] }));
}

describe('docs: the settings table of docs/configuration.md matches the configuration schema', () => {
  const defaults = schemaDefaults(schema);
  let entries: { key: string; written: string }[] = [];
  let tableKeys: string[] = [];
  before(() => {
    entries = tableRows(readDoc('docs/configuration.md'), ['key', 'default', 'meaning']).flatMap(rowEntries);
    tableKeys = entries.map((e) => e.key);
  });

  it('lists every key of the schema', () => {
    expect([...defaults.keys()].filter((key) => !tableKeys.includes(key)), 'keys of lib/config/schema.ts missing from the table').to.deep.equal([]);
  });

  it('lists only keys of the schema, each once', () => {
    expect(tableKeys.filter((key) => !defaults.has(key)), 'keys in the table that lib/config/schema.ts does not have').to.deep.equal([]);
    expect(tableKeys.filter((key, i) => tableKeys.indexOf(key) !== i), 'keys listed twice').to.deep.equal([]);
  });

  it('gives each key the schema\'s default, and (env only) for secrets', () => {
    const envOnly = environmentOnly.map((key) => key.replace(/\./g, ':'));
    const wrong = entries
      .filter(({ key }) => defaults.has(key))
      .map(({ key, written: text }) => ({ key, table: text, schema: envOnly.includes(key) ? '(env only)' : written(defaults.get(key)) }))
      .filter(({ table, schema: expected }) => table !== expected);
    expect(wrong).to.deep.equal([]);
  });
});
