import type { Kysely } from 'kysely';
import type { DocumentLimits } from '../../documents/document-limits.js';
import type { LookupCache } from '../../lookup/lookup-cache.js';
import type { ListDefinition, ListLimits } from '../../storage/list-query.js';
import type { Storage } from '../../storage/storage.js';
import type { ReferringTable } from '../declaration.js';
import type { ChildModel, ResourceModel } from '../model.js';
import type { ReadStatement } from './read-statement.js';
import type { Settled } from './settle.js';
import type { TableIo } from './table-io.js';
import type { RecordVersions } from './version-tag.js';

/** What the layer gives a resource's runtime when the server (or a CLI command) opens its store. */
export interface RuntimeOptions {
  readonly storage: Storage;
  readonly lookups: LookupCache;
  /** RestAPI:MaxRows and the cursor keys; Documents:MaxLines, every child collection's cap. */
  readonly limits: ListLimits & DocumentLimits;
  /** The tables whose rows refer to this resource's records: declared ones and those of other resources' references. */
  readonly referrers: readonly ReferringTable[];
}

/** A child collection as its runtime reads and writes it. */
export interface ChildRuntime {
  readonly model: ChildModel;
  readonly table: TableIo;
  readonly settled: Settled;
  readonly readAll: ReadStatement;
  readonly readOne: ReadStatement;
}

/** A resource as the operations of lib/resources/runtime/ run it on one store: built once, shared by every request. */
export interface Runtime extends RuntimeOptions {
  readonly model: ResourceModel;
  /** The store as untyped SQL: the runtime builds its statements from the model, not from table types. */
  readonly db: Kysely<unknown>;
  readonly table: TableIo;
  readonly settled: Settled;
  readonly children: readonly ChildRuntime[];
  readonly list: ListDefinition<string>;
  readonly readRecord: ReadStatement;
  /** What the record's ETag is made of: the GET's columns, the write's, and the tag of a row. */
  readonly versions: RecordVersions;
}
