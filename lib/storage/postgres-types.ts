import type pg from 'pg';
import { pgDriver } from './pg-driver.js';
import { StoredDate } from './sql-values.js';

/** timestamptz as PostgreSQL writes it in a UTC session: `2025-12-30 00:00:00+00`, microseconds optional. */
const utcTimestamp = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d)(?:\.(\d{1,6}))?\+00$/;

/**
 * A timestamptz in UTC becomes a StoredDate of its ISO text, as SQLite's dates are: JSON.stringify then writes the
 * text instead of calling Date#toJSON (toISOString) per date, which was most of a 50-row page's serialisation on
 * PostgreSQL. The value is the same instant as pg's own parser gives (milliseconds, the fraction truncated as pg's
 * does); other offsets (a session in another time zone) take pg's parser.
 */
function parseTimestamp(text: string): Date {
  const parts = utcTimestamp.exec(text);
  if (!parts) return pgDriver().types.getTypeParser(pgDriver().types.builtins.TIMESTAMPTZ)(text);
  return new StoredDate(`${parts[1]}T${parts[2]}.${(parts[3] ?? '').padEnd(3, '0').slice(0, 3)}Z`);
}

/** The pg type parsers of restlayer's pools: pg's own, but for timestamptz in text. */
export const postgresTypes: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === pgDriver().types.builtins.TIMESTAMPTZ && format !== 'binary'
    ? parseTimestamp
    : pgDriver().types.getTypeParser(oid, format))) as pg.CustomTypesConfig['getTypeParser'],
};
