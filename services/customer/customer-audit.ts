import { type AuditOperation, type AuditState, type HistorySource, type Kysely, type Storage, type Tables, diffChanges, recordAudit } from 'restlayer';
import { customerScopes } from './customer-scopes.js';
import type { CustomerTables } from './customer-tables.js';

type Db = Tables & CustomerTables;

/** Where a customer's history is: entries under `customer`, the customer's scope, deleted ones for customer.delete. */
export const customerHistory: HistorySource = {
  entity: 'customer',
  table: 'customer',
  key: 'customer_id',
  scopes: customerScopes,
  deletePermission: 'customer.delete',
  name: 'Customer',
};

/** The audit of customers: the record's wire fields before and after a write, read and recorded in its transaction. */
export class CustomerAudit {
  constructor(private readonly storage: Storage) {}

  /** The customer as stored now, through `trx`; `lock` locks the row first (PostgreSQL) for the write that follows. */
  async state(trx: Kysely<Db>, customerId: number, lock = false): Promise<AuditState | undefined> {
    const r = await trx.selectFrom('customer').select(['name', 'account_number', 'territory_id', 'revision_number'])
      .where('customer_id', '=', customerId)
      .$if(lock && this.storage.dialect.locksRows, (q) => q.forUpdate()).executeTakeFirst();
    return r && { name: r.name, accountNumber: r.account_number, territoryId: r.territory_id, revisionNumber: r.revision_number };
  }

  record(trx: Kysely<Db>, customerId: number, operation: AuditOperation, before?: AuditState, after?: AuditState): Promise<void> {
    return recordAudit(trx, { entity: customerHistory.entity, recordId: customerId, operation, changes: diffChanges(before, after) });
  }
}
