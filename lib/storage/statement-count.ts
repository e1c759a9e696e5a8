import type { LogEvent } from 'kysely';

/**
 * Counts the statements a store runs: every query its Kysely instances execute (their `log` hook, failed ones too) and
 * every direct read (`readNow`). A transaction's BEGIN and COMMIT (or ROLLBACK) count too, as Kysely's drivers send them
 * as queries: on PostgreSQL the count is the round trips. The speed of a request rests on how many statements it sends, so this is a number to watch: the counting tests hold the hot routes
 * to theirs (test/sales-order/statements.test.ts), and metrics serve it as `restlayer_db_statements_total`.
 */
export class StatementCount {
  #count = 0;

  /** Kysely's `log` option: called once per executed query. */
  readonly log = (_event: LogEvent): void => {
    this.#count++;
  };

  add(): void {
    this.#count++;
  }

  get value(): number {
    return this.#count;
  }
}
