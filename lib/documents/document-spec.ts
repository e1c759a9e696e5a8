import type { Transaction } from 'kysely';
import type { RecordScopes } from '../storage/record-scope.js';

/**
 * A document: a parent record (a sales order) and its children (its lines), changed together. The parent carries a
 * revision and a modified date, and columns derived from its children (totals) that every child write recomputes in
 * the same transaction, so no other request ever sees a child without its parent's totals.
 */
export interface DocumentSpec<DB, W = Readonly<Record<string, unknown>>> {
  /** The parent's table, its key column and the name its messages give it ("Sales order"). */
  readonly parent: { readonly table: string; readonly key: string; readonly entity: string };
  /** The parent's revision column (default `revision_number`) and modified-date column (default `modified_date`). */
  readonly revision?: string;
  readonly modified?: string;
  /**
   * The children's table, key column, the column naming their parent, and their messages' name ("Sales order line");
   * `property`: the input property that carries a whole document's children (the parent's create body), which
   * Document_TooManyLines names (default `lines`).
   */
  readonly child: { readonly table: string; readonly key: string; readonly parentKey: string; readonly entity: string; readonly property?: string };
  /**
   * The most children one parent holds (`Documents:MaxLines`: `documentLimits(config).maxLines`). A create, or a write
   * that adds children, which would pass it is a 400 Document_TooManyLines on `child.property`, and writes nothing;
   * the count is taken with the parent locked, so concurrent writes cannot pass it together.
   */
  readonly maxChildren: number;
  /**
   * The parent's record scopes (lib/storage/record-scope.ts), their conditions written on the parent's table name:
   * a parent out of the caller's scope is locked by no write (404 Entity_NotFound, like an unknown id), and a write
   * or create that would leave it out of scope is a 403 Security_Forbidden with nothing written.
   */
  readonly scopes?: RecordScopes;
  /**
   * The parent's derived columns, read from its children inside the write's transaction (after the children changed):
   * column → stored value. A total out of range is reported here on `currentErrors()` with its property; the write then
   * stops and nothing is stored. Answers what the service wants to answer with them (the wire totals).
   */
  totals(trx: Transaction<DB>, parentId: number): Promise<DocumentTotals<W>>;
  /**
   * The same derived columns when only the parent's own fields change (writeParent): computed from the parent's row as
   * it will be stored (the locked row with the write's columns), its children unchanged, so the write reads nothing
   * more. A total out of range is reported as in `totals`. Without it, writeParent reads them with `totals` after its
   * update and stores them with a second one.
   */
  parentTotals?(row: Readonly<Record<string, unknown>>): DocumentTotals<W>;
}

/** The parent's derived columns to store, and the same values as the service answers them. */
export interface DocumentTotals<W = Readonly<Record<string, unknown>>> {
  readonly columns: Readonly<Record<string, unknown>>;
  readonly wire: W;
}
