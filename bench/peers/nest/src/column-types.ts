// Column options for the values the two stores keep differently (restlayer's schema: dates as ISO text on SQLite and
// timestamptz on PostgreSQL; amounts as real/double or, once they are money, integer ten-thousandths/numeric).
import type { ColumnOptions, ValueTransformer } from 'typeorm';
import { isPostgres } from './settings';

const dateTransformer: ValueTransformer = {
  // SQLite: the same fixed-width ISO text restlayer writes, so the rows sort and compare as before.
  to: (d: Date | null | undefined) => (d == null || isPostgres ? d : d.toISOString()),
  from: (v: string | Date | null) => (v == null || v instanceof Date ? v : new Date(v)),
};

export const dateColumn: ColumnOptions = { type: isPostgres ? 'timestamptz' : 'text', transformer: dateTransformer };

/** Units per currency unit as stored: 10,000 when SQLite keeps money as integer ten-thousandths (set at start). */
let moneyUnits = 1;
export function setMoneyUnits(units: number) {
  moneyUnits = units;
}

export const amountColumn: ColumnOptions = {
  type: isPostgres ? 'numeric' : 'real',
  transformer: {
    to: (n: number | null | undefined) => (n == null ? n : moneyUnits === 1 ? n : Math.round(n * moneyUnits)),
    // pg reads numeric as text; Number() gives the nearest double, as restlayer's toMoney does.
    from: (raw: string | number | null) => (raw == null ? raw : Number(raw) / moneyUnits),
  },
};
