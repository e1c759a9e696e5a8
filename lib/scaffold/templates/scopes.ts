import type { ServiceSpec } from '../spec.js';
import { header, lines, lowerHuman } from './code.js';
import { anOf } from './child-models.js';

/** `purchaseOrderScopes`: the service's record scopes, as its list, reads, writes, history and routes name them. */
export const scopesName = (spec: ServiceSpec) => `${spec.camel}Scopes`;

/** `purchaseOrderRouteScopes`: what every route of the service spreads into its options. */
export const routeScopesName = (spec: ServiceSpec) => `${spec.camel}RouteScopes`;

/** `purchaseOrderReference`: how another service's records refer to this one's (resolveReference). */
export const referenceName = (spec: ServiceSpec) => `${spec.camel}Reference`;

/**
 * services/<name>/<name>-scopes.ts: the record-scope hook. Empty, so every caller holding a permission reaches every
 * record; the comment shows how to add a scope. The service applies whatever it holds in every query (list, count,
 * read, write, history), and the routes name its scopes, so adding one here is the whole change.
 */
export function scopesFile(spec: ServiceSpec): string {
  const { kebab, table, idColumn, id } = spec;
  const human = lowerHuman(spec);
  return lines(
    header(spec).trimEnd(),
    "import type { RecordReference, RecordScopes } from 'restlayer';",
    '',
    '/**',
    ` * The record scopes of ${human} records: named conditions that limit a permission to some records. A role granted`,
    ` * \`${kebab}.read:own\` (Authorization:Roles) reaches only the records the scope \`own\` keeps, in every list, count,`,
    ' * cursor page, read, write and history query of this service, never by filtering rows after reading them; outside',
    ' * it a record is a 404, and a create or update that would leave a record out of the caller\'s scope is a 403 with',
    ' * nothing written. None yet: a caller with a permission reaches every record.',
    ' *',
    ' * To add one, e.g. the records of the caller\'s team: a column (in a new migration, with an index) and a user',
    ' * attribute (`restlayer user set-attribute NAME teamId 7`), then, with NOTHING and sql imported from restlayer:',
    ' *',
    ' *   own: {',
    ` *     description: "${human} records whose team_id is the caller's user attribute teamId",`,
    ' *     where(alias, attributes) {',
    ' *       const teamId = attributes.teamId?.trim();',
    ' *       // A caller without the attribute reaches nothing: never "no condition".',
    ' *       if (teamId === undefined || !/^\\d{1,9}$/.test(teamId)) return NOTHING;',
    ' *       return sql<boolean>`${sql.ref(`${alias}.team_id`)} = ${Number(teamId)}`;',
    ' *     },',
    ' *   },',
    ' *',
    ` * \`alias\` is the name the query gives the ${table} table; a condition may read other tables in a subquery (name`,
    ' * them in `reads`, so kept counts follow their changes). A scoped caller\'s create must land inside the scope (set',
    ' * team_id from the attribute in create), or it is refused.',
    ' */',
    `export const ${scopesName(spec)}: RecordScopes = {};`,
    '',
    '/** The routes\' `scopes`: the names above, and no `scopes` at all while there are none. */',
    `export const ${routeScopesName(spec)}: { scopes?: readonly string[] } = Object.keys(${scopesName(spec)}).length`,
    `  ? { scopes: Object.keys(${scopesName(spec)}) }`,
    '  : {};',
    '',
    '/**',
    ` * How another service refers to ${anOf(human)} record (a field of its own holding the ${id}): resolve the id with`,
    ` * restlayer's \`resolveReference(db, ${referenceName(spec)}, id)\`, never a query of its own. It reads as the caller`,
    ` * reads ${human} records, with ${kebab}.read and the scope above: a record out of their reach answers as an unknown`,
    ' * id (same status, code and text), so a reference neither tells which ids exist nor brings a record into the',
    " * caller's scope.",
    ' */',
    `export const ${referenceName(spec)}: RecordReference = {`,
    `  table: '${table}',`,
    `  key: '${idColumn}',`,
    `  readPermission: '${kebab}.read',`,
    `  scopes: ${scopesName(spec)},`,
    '};',
    '',
  );
}
