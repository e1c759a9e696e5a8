import { type QueryExecutorProvider, sql } from 'kysely';
import type { Struct } from 'superstruct';
import type { AppConfig } from '../config/schema.js';
import { MESSAGES } from '../envelope/message-catalogue.js';
import { currentErrors } from '../envelope/request-scope.js';
import type { BodyLimit } from '../validation/json-budget.js';
import type { DocumentSpec } from './document-spec.js';

/** What a document's service needs of the configuration: `Documents:MaxLines`, its spec's `maxChildren`. */
export interface DocumentLimits {
  readonly maxLines: number;
}

export function documentLimits(config: Pick<AppConfig, 'Documents'>): DocumentLimits {
  return { maxLines: config.Documents.MaxLines };
}

type Counted = Pick<DocumentSpec<unknown>, 'parent' | 'child' | 'maxChildren'>;

/**
 * Whether `count` children are more than the document holds: then Document_TooManyLines is recorded on the children's
 * input property (`lines`). A service checks a create's input with it before any work (a refused document then opens
 * no transaction); createDocument and writeDocument check what is stored, under the parent's lock.
 */
export function tooManyChildren(spec: Counted, count: number): boolean {
  if (count <= spec.maxChildren) return false;
  currentErrors().add(MESSAGES.Document_TooManyLines({ entity: spec.parent.entity, maxLines: spec.maxChildren, property: spec.child.property ?? 'lines' }));
  return true;
}

/** How many children the parent `parentId` has, as `trx` sees them (one indexed count of at most a few thousand rows). */
export async function countChildren(trx: QueryExecutorProvider, spec: Pick<DocumentSpec<unknown>, 'child'>, parentId: number): Promise<number> {
  const { child } = spec;
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(child.table)}
    where ${sql.ref(child.parentKey)} = ${parentId}`.execute(trx);
  return Number(rows[0].n);
}

/**
 * The body limit (a route's `maxBody`) of a route that takes a whole document, its create: what a record write takes
 * (RestAPI:DefaultBodyBytes and DefaultBodyItems) for the parent's own fields, plus Documents:MaxLines children of at
 * most `childBytes` bytes each (written out, indentation included), each one array element and the keys of `child`,
 * the model of one child. A document past its line cap is then refused as a 413 before it is parsed, however its
 * lines are written; one within it reaches validation and the 400 Document_TooManyLines.
 */
export function documentBody<T, S>(child: Struct<T, S>, childBytes: number): (config: AppConfig) => BodyLimit {
  const childKeys = Object.keys((child as { schema?: object }).schema ?? {}).length;
  return (config) => ({
    bytes: config.RestAPI.DefaultBodyBytes + config.Documents.MaxLines * childBytes,
    items: config.RestAPI.DefaultBodyItems + config.Documents.MaxLines * (childKeys + 1),
  });
}
