/** Value conversions between JavaScript and one SQL provider. */
export interface SqlValues {
  readonly provider: 'sqlite' | 'postgres';
  date(d: Date): string | Date;
  bool(b: boolean): number | boolean;
  toDate(v: string | Date): Date;
  toBool(v: number | boolean): boolean;
}

export const sqliteValues: SqlValues = {
  provider: 'sqlite',
  // Fixed-width ISO text sorts and compares like the instant it names.
  date: (d) => d.toISOString(),
  bool: (b) => (b ? 1 : 0),
  toDate: (v) => (v instanceof Date ? v : new Date(v)),
  toBool: (v) => v === true || v === 1,
};

export const postgresValues: SqlValues = {
  provider: 'postgres',
  date: (d) => d,
  bool: (b) => b,
  toDate: (v) => (v instanceof Date ? v : new Date(v)),
  toBool: (v) => v === true || v === 1,
};
