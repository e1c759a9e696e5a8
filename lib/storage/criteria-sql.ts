import { type RawBuilder, type SqlBool, sql } from 'kysely';
import type { FieldCriterion } from '../validation/criteria.js';
import type { StorageDialect } from './dialects/dialect.js';

/** Sorts after every other character (U+10FFFF): a prefix followed by it bounds the texts that start with the prefix. */
const LAST_CHARACTER = '\u{10FFFF}';

/** LIKE patterns take the user's text literally: `%`, `_` and the escape character itself are escaped. */
const literal = (text: string) => text.replace(/[\\%_]/g, (c) => '\\' + c);

/**
 * The SQL condition for one criterion, with bound values only. Negations include NULLs, so "status is not 5"
 * also lists orders without a status; text matches (CN, SW) ignore case.
 */
export function criterionSql(column: string, criterion: FieldCriterion<unknown>, dialect: StorageDialect): RawBuilder<SqlBool> {
  const col = sql.ref(column);
  // Amounts are bound as the column keeps them (SQLite: ten-thousandths), so comparisons stay exact and use its index.
  const bind = criterion.money
    ? criterion.values.map((v) => dialect.money(v as number))
    : criterion.values.map((v) => (v instanceof Date ? dialect.date(v) : typeof v === 'boolean' ? dialect.bool(v) : v));
  const [a, b] = bind;
  const orNull = (condition: RawBuilder<unknown>) => sql<SqlBool>`(${condition} or ${col} is null)`;
  const like = (pattern: string) => sql<SqlBool>`lower(${col}) like lower(${pattern}) escape '\\'`;
  // Text as SW compares it, and as the index that serves SW holds it (lib/storage/list-indexes.ts).
  const folded = dialect.foldedText(column);
  // A prefix is also a range of the folded text, which an index on exactly that expression serves (LIKE with a bound
  // pattern cannot use one); the LIKE after it keeps the match exact.
  const startsWith = (prefix: string) =>
    sql<SqlBool>`(${folded} >= lower(${prefix}) and ${folded} < (lower(${prefix}) || ${LAST_CHARACTER}) and ${like(`${literal(prefix)}%`)})`;
  switch (criterion.operator) {
    case 'EQ': return sql`${col} = ${a}`;
    case 'NEQ': return orNull(sql`${col} <> ${a}`);
    case 'In': return sql`${col} in (${sql.join(bind)})`;
    case 'NIn': return orNull(sql`${col} not in (${sql.join(bind)})`);
    case 'LT': return sql`${col} < ${a}`;
    case 'LE': return sql`${col} <= ${a}`;
    case 'GT': return sql`${col} > ${a}`;
    case 'GE': return sql`${col} >= ${a}`;
    case 'BW': return sql`${col} between ${a} and ${b}`;
    case 'NBW': return orNull(sql`${col} not between ${a} and ${b}`);
    case 'CN': return like(`%${literal(String(a))}%`);
    case 'NCN': return orNull(sql`not (${like(`%${literal(String(a))}%`)})`);
    case 'SW': return startsWith(String(a));
    case 'NSW': return orNull(sql`not (${like(`${literal(String(a))}%`)})`);
    case 'NL': return sql`${col} is null`;
    case 'NNL': return sql`${col} is not null`;
  }
}
