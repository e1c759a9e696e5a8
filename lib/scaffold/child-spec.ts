import { type ServiceNames, serviceNames, snakeCase, upperFirst } from './names.js';
import { reservedTable } from './reserved-names.js';
import { camelCase, kebabCase } from '../resources/names.js';
import { ROUTE_GROUPS } from '../resources/routes.js';
import { ScaffoldError } from './scaffold-error.js';
import { type ChildSpec, type FieldSpec, MAX_IDENTIFIER, type ServiceSpec, type TotalSpec, checkDerived, parseField, serviceSpec } from './spec.js';

/** The child collection's part of the command line: `--child`, `--child-field` and `--child-total`, as given. */
export interface ChildArgs {
  child?: readonly string[];
  childField?: readonly string[];
  childTotal?: readonly string[];
  /** `--action NAME`: the record's actions (they are not the child's, but checked against its names too). */
  action?: readonly string[];
}

const usage = (text: string) => new ScaffoldError(text, 'usage');
const kebabName = /^[a-z][a-z0-9]*(-[a-z0-9]+)*$/;
const camelName = /^[a-z][a-zA-Z0-9]*$/;

/** `line` → `lines`, `entry` → `entries`, `box` → `boxes`: the parent's array property. */
function pluralOf(camel: string): string {
  if (/[^aeiou]y$/.test(camel)) return `${camel.slice(0, -1)}ies`;
  if (/(s|x|z|ch|sh)$/.test(camel)) return `${camel}es`;
  return `${camel}s`;
}

/**
 * The parent's total of a child's money field when the command line names none: `amount` → `amountTotal`, and a
 * field that is a total already the plural of what it totals (`lineTotal` → `linesTotal`, not `lineTotalTotal`).
 */
export function totalName(field: string): string {
  const stem = /^(.+)Total$/.exec(field)?.[1];
  return stem ? `${pluralOf(stem)}Total` : `${field}Total`;
}

/** Splits `<child>:<field spec>` (the child's name, then what `--field` takes). */
function ownedBy(flag: string, arg: string, child: string): string {
  const at = arg.indexOf(':');
  const owner = at < 0 ? '' : arg.slice(0, at);
  if (owner !== child) throw usage(`${flag} '${arg}': start with the child collection's name, as in ${child}:${flag === '--child-total' ? 'amount' : 'amount:money:required'}`);
  return arg.slice(at + 1);
}

/**
 * The child collection the arguments describe, or none. One child collection per service (a second `--child` is
 * refused): the document rules (one transaction, the parent's revision and totals) are written for one.
 */
export function childSpec(parent: ServiceNames & { fields: FieldSpec[] }, args: ChildArgs): ChildSpec | undefined {
  const [segment, ...more] = args.child ?? [];
  if (segment === undefined) {
    if (args.childField?.length || args.childTotal?.length) throw usage('--child-field and --child-total need a --child <name> to belong to');
    return undefined;
  }
  if (more.length) throw usage(`--child is given twice ('${segment}', '${more[0]}'): a service has one child collection`);
  if (!kebabName.test(segment)) throw usage(`--child '${segment}' must be kebab-case: lower-case words joined by '-' (e.g. line)`);
  // /<name>/{id}/history is the record's change history (the audit the scaffold generates).
  if (segment === 'history') throw usage("--child 'history': /<name>/{id}/history is the record's change history; name the child otherwise");
  const names = serviceNames(`${parent.kebab}-${segment}`);
  const own = serviceNames(segment);
  const plural = pluralOf(own.camel);
  const parentNames = new Map(parent.fields.map((f) => [f.name.toLowerCase(), f.name]));
  if (parentNames.has(plural.toLowerCase())) throw usage(`--child '${segment}': the parent's field ${parentNames.get(plural.toLowerCase())} is named as its array of ${plural}`);
  if (!args.childField?.length) throw usage(`give the fields of child ${segment}: --child-field ${segment}:name:type[:option...], once per field`);

  const reserved = new Map([
    [names.id.toLowerCase(), 'the id of every child record'],
    [parent.id.toLowerCase(), 'the parent of every child record'],
    ['revisionnumber', "the parent's concurrency check"],
    ['modifieddate', "the parent's time of change"],
    ...['constructor', 'prototype'].map((n): [string, string] => [n, 'refused as a JSON property']),
  ]);
  const fields: FieldSpec[] = [];
  for (const arg of args.childField) {
    const field = parseField(ownedBy('--child-field', arg, segment), '--child-field');
    const where = `--child-field '${arg}'`;
    const why = reserved.get(field.name.toLowerCase());
    if (why) throw usage(`${where}: ${field.name} is reserved (${why})`);
    // A child list is the parent's, in id order: nothing to sort, filter or keep unique across parents.
    if (field.sortable || field.filterable || field.unique) throw usage(`${where}: a child field takes the options required and max=N only`);
    // Dates inside the parent's array would need the proxy to revive nested properties; lookups, checks per item.
    if (field.type === 'date' || field.type === 'lookup') throw usage(`${where}: a child field is text, integer, decimal, money or boolean`);
    const twin = fields.find((f) => f.name.toLowerCase() === field.name.toLowerCase() || f.column === field.column);
    if (twin) throw usage(`${where}: child ${segment} has the field ${twin.name} already (names match case-insensitively)`);
    fields.push(field);
  }
  checkDerived(fields, '--child-field', args.childField);

  const totals: TotalSpec[] = [];
  for (const arg of args.childTotal ?? []) {
    const [name, named, ...extra] = ownedBy('--child-total', arg, segment).split(':');
    if (extra.length || (named !== undefined && !/^[a-z][a-zA-Z0-9]*$/.test(named))) {
      throw usage(`--child-total '${arg}': write ${segment}:<money field>[:<parent's total>], the total's name camelCase (e.g. ${segment}:lineTotal:subTotal)`);
    }
    const of = fields.find((f) => f.name === name);
    if (!of || of.type !== 'money') throw usage(`--child-total '${arg}': name a money field of child ${segment} (${fields.filter((f) => f.type === 'money').map((f) => f.name).join(', ') || 'it has none'})`);
    if (totals.some((t) => t.of === of)) throw usage(`--child-total '${arg}' is given twice`);
    const total = named ?? totalName(name);
    if (totals.some((t) => t.name.toLowerCase() === total.toLowerCase())) throw usage(`--child-total '${arg}': another total is named ${total} already; name this one (${segment}:${name}:<name>)`);
    if (parentNames.has(total.toLowerCase())) throw usage(`--child-total '${arg}': the parent has the field ${parentNames.get(total.toLowerCase())} already, which the total would be`);
    totals.push({ of, name: total, column: snakeCase(total) });
  }
  return { ...names, segment, short: upperFirst(own.camel), plural, fields, totals };
}

/** The index of a child's parent key (a parent's children are read, counted and deleted by it). */
export const childParentIndexName = (child: Pick<ChildSpec, 'table'>) => `ix_${child.table}_parent`;

/**
 * `--action NAME`, each the declaration's key of an action (camelCase, its method) that no field, route of the record's
 * or other action has. Given camelCase (`markPaid`) or as its path (`mark-paid`): both are the key markPaid, served at
 * `mark-paid` (the model's kebabCase of the key).
 */
function actionsOf(args: readonly string[], fieldArgs: readonly string[]): string[] {
  const fields = new Set(fieldArgs.map((f) => f.split(':')[0].toLowerCase()));
  const actions: string[] = [];
  for (const given of args) {
    if (!camelName.test(given) && !kebabName.test(given)) {
      throw usage(`--action '${given}': an action's name is camelCase or kebab-case, letters and digits with a lower-case letter first (e.g. approve, markPaid or mark-paid)`);
    }
    const name = camelCase(given);
    const path = kebabCase(name);
    // `mark-2nd` would be the key mark2nd, served at mark2nd: a word after the first starts with a letter.
    if (given.includes('-') && path !== given) throw usage(`--action '${given}': each word after the first starts with a letter, so that its key ${name} is served at ${given}`);
    if (ROUTE_GROUPS.has(name)) throw usage(`--action '${given}': /<name>/{id}/${path} is the record's ${name} already; name the action otherwise`);
    if (fields.has(name.toLowerCase())) throw usage(`--action '${given}': a field is named so`);
    if (actions.includes(name)) throw usage(`--action '${given}' is given twice${given === name ? '' : ` (as ${name})`}`);
    actions.push(name);
  }
  return actions;
}

/** The whole service with its child collection, if any: `serviceSpec` of the parent, then the child checked against it. */
export function documentSpec(name: string, fieldArgs: readonly string[], command: string, args: ChildArgs = {}): ServiceSpec {
  const spec = { ...serviceSpec(name, fieldArgs, command), actions: actionsOf(args.action ?? [], fieldArgs) };
  const child = childSpec(spec, args);
  const taken = child && spec.actions.find((a) => a === child.plural || kebabCase(a) === child.segment);
  if (taken) throw usage(`--action '${taken}': the child collection is named so, or served at that path`);
  if (!child) return spec;
  // The child's table is the parent's name and the child's: `pg` with child `class` would make pg_class.
  const table = reservedTable(child.table);
  if (table) throw usage(`--child '${child.segment}' would make the table ${child.table}, a name kept for ${table}; choose another`);
  const long = [child.table, child.idColumn, childParentIndexName(child), ...child.fields.map((f) => f.column), ...child.totals.map((t) => t.column)]
    .find((identifier) => identifier.length > MAX_IDENTIFIER);
  if (long) throw usage(`the SQL name ${long} is longer than ${MAX_IDENTIFIER} characters: shorten the service, child or field name`);
  const parentColumns = new Set(spec.fields.map((f) => f.column));
  const clash = child.totals.find((t) => parentColumns.has(t.column));
  if (clash) throw usage(`--child-total: the column ${clash.column} of ${clash.name} is a parent field's already`);
  return { ...spec, child };
}
