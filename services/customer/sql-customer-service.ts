// Made by `restlayer new service customer --field name:text:required:max=100:sortable:filterable --field accountNumber:text:max=15:sortable:filterable --field territoryId:lookup=sales-territory:sortable:filterable`; the code is yours to edit: nothing regenerates it.
import {
  type HistoryPage, type Kysely, type ListDefinition, MESSAGES, type ListLimits, type LookupCache, Output, type Selectable, type Storage,
  type Tables, applyMergePatch, currentAccess, currentErrors, inTransaction, keptQuery, readHistory, readListRows, scopeCondition, sql, updateFieldsOf,
} from 'restlayer';
import type {
  CustomerFilterField, CustomerSortField,
  Customer_CreateInput_Data, Customer_CreateOutput, Customer_ReadListInput_Criteria, Customer_ReadListOutput,
  Customer_HistoryOutput, Customer_PatchInput_Data, Customer_ReadOutput, Customer_UpdateInput_Data, Customer_UpdateOutput,
} from './customer-models.js';
import { CustomerAudit, customerHistory } from './customer-audit.js';
import { CustomerUpdateData } from './customer-models.js';
import { customerScopes } from './customer-scopes.js';
import type { ICustomerService } from './customer-service.js';
import type { CustomerTable, CustomerTables } from './customer-tables.js';

const updateFields = updateFieldsOf(CustomerUpdateData);

const listColumns = ['customer_id', 'name', 'account_number', 'territory_id'] as const;
type ListRow = Pick<Selectable<CustomerTable>, (typeof listColumns)[number]>;

/** The list: customers, filtered and sorted by the wire fields. */
export const customerList: ListDefinition<CustomerSortField | CustomerFilterField> = {
  table: 'customer',
  alias: 'customer',
  id: 'customer.customer_id',
  columns: {
    customerId: 'customer.customer_id',
    name: 'customer.name',
    accountNumber: 'customer.account_number',
    territoryId: 'customer.territory_id',
  },
  select: listColumns.map((column) => `customer.${column}`),
  notNull: ['customerId', 'name'],
  fullText: ['name'],
  maxLength: { name: 100, accountNumber: 15 },
  scopes: customerScopes,
};

/** The current caller's scope condition on customers (undefined when not limited): in every query that reaches one. */
const customersInScope = () => scopeCondition(customerScopes, 'customer');

/** One record by id, through the caller's scope: kept compiled (restlayer's keptQuery), as clients read records again and again. */
const customerById = keptQuery((db: Kysely<Tables & CustomerTables>, p: { customerId: number }) => {
  const scope = customersInScope();
  return db.selectFrom('customer')
    .select([...listColumns, 'revision_number', 'modified_date'])
    .where('customer_id', '=', p.customerId)
    .$call((q) => (scope ? q.where(scope) : q));
});

export type CustomerServiceOptions = ListLimits;

export class SqlCustomerService implements ICustomerService {
  private readonly db: Kysely<Tables & CustomerTables>;
  private readonly audit: CustomerAudit;

  constructor(
    private readonly storage: Storage,
    private readonly lookups: LookupCache,
    private readonly options: CustomerServiceOptions,
  ) {
    this.db = storage.db.withTables<CustomerTables>();
    this.audit = new CustomerAudit(storage);
  }

  private listItem(r: ListRow): Customer_ReadListOutput {
    return {
      customerId: r.customer_id,
      name: r.name,
      accountNumber: r.account_number ?? undefined,
      territoryId: r.territory_id ?? undefined,
    };
  }

  private notFound(customerId: number) {
    currentErrors().add(MESSAGES.Entity_NotFound({ entity: 'Customer', id: customerId }));
  }

  async read(customerId: number): Promise<Output<Customer_ReadOutput>> {
    const [r] = await customerById(this.db, { customerId });
    if (!r) {
      this.notFound(customerId);
      return Output.of();
    }
    return Output.of({ ...this.listItem(r), revisionNumber: r.revision_number, modifiedDate: this.storage.values.toDate(r.modified_date) });
  }

  async readList(criteria: Customer_ReadListInput_Criteria): Promise<Output<Customer_ReadListOutput[]>> {
    const { rows, totalCount, nextCursor } = await readListRows<CustomerSortField | CustomerFilterField, ListRow>(this.storage, customerList, criteria, this.options);
    return Output.of(rows.map((r) => this.listItem(r)), totalCount, nextCursor);
  }

  /** Business rules shared by create and update (`customerId` the record being updated); structural checks already ran in the route. */
  private async checkData(data: Customer_CreateInput_Data, customerId?: number) {
    const errors = currentErrors();
    if (!(await this.isActiveEntry('sales-territory', data.territoryId))) {
      errors.error('Validation', 'Customer_InvalidTerritoryId', `territoryId ${data.territoryId} is not an active entry of lookup table sales-territory.`, { property: 'territoryId' });
    }
    errors.abortIfHasErrors();
    // The unique index (ux_customer_account_number) decides races between concurrent writes: the layer answers a
    // violation of it with the same 409 (customerModule.uniqueKeys). This check only gives the usual case its answer early.
    if (data.accountNumber != null) {
      const taken = await this.db.selectFrom('customer').select('customer_id')
        .where(sql<boolean>`lower(account_number) = lower(${data.accountNumber})`)
        .$if(customerId !== undefined, (q) => q.where('customer_id', '<>', customerId!))
        .executeTakeFirst();
      if (taken) {
        // A caller limited by a scope learns that the number is taken, not which customer has it: that one may be out
        // of their reach, where it does not exist for them.
        const owner = customersInScope() ? 'another customer' : `customer ${taken.customer_id}`;
        errors.error('Concurrency', 'Entity_Duplicate', `accountNumber: ${owner} already has account number ${data.accountNumber}; it must be unique.`,
          { property: 'accountNumber', status: 409 });
        errors.abortIfHasErrors();
      }
    }
  }

  /** Whether `id` names an active entry of lookup table `type`; no value (an optional field left empty) is fine. */
  private async isActiveEntry(type: string, id: number | null | undefined): Promise<boolean> {
    if (id == null) return true;
    const cached = await this.lookups.get(type);
    return cached?.table.data.some((entry) => entry.id === id && entry.isActive) ?? false;
  }

  /** The stored form of the fields: dates and booleans as the provider keeps them, an optional field without value as NULL. */
  private columnsOf(data: Customer_CreateInput_Data) {
    return {
      name: data.name,
      account_number: data.accountNumber ?? null,
      territory_id: data.territoryId ?? null,
    };
  }

  async create(data: Customer_CreateInput_Data): Promise<Output<Customer_CreateOutput>> {
    // A new customer has no orders, so no scope of customers (`own`: those with the caller's orders) reaches it: a
    // scoped caller's create would leave the record out of their scope at once, a 403 with nothing written.
    if (currentAccess()?.scopes) {
      currentErrors().add(MESSAGES.Security_Forbidden());
      return Output.of();
    }
    await this.checkData(data);
    const now = new Date();
    const customer_id = await inTransaction(this.db, async (trx) => {
      const { customer_id } = await trx.insertInto('customer')
        .values({ ...this.columnsOf(data), revision_number: 1, modified_date: this.storage.values.date(now) })
        .returning('customer_id')
        .executeTakeFirstOrThrow();
      await this.audit.record(trx, customer_id, 'create', undefined, await this.audit.state(trx, customer_id));
      return customer_id;
    });
    return Output.of({ customerId: customer_id, revisionNumber: 1, modifiedDate: now });
  }

  update(customerId: number, data: Customer_UpdateInput_Data): Promise<Output<Customer_UpdateOutput>> {
    return this.write(customerId, data, 'update');
  }

  /** PUT, and PATCH once merged: `operation` names it in the customer's history. */
  private async write(customerId: number, data: Customer_UpdateInput_Data, operation: 'update' | 'patch'): Promise<Output<Customer_UpdateOutput>> {
    await this.checkData(data, customerId);
    const now = new Date();
    const v = this.storage.values;
    const { revisionNumber } = data;
    // Out of the caller's scope, the customer is not found. A customer's own fields do not decide its scope (its
    // orders do), so an update that reaches it leaves it in scope.
    const scope = customersInScope();
    // The revision in the WHERE makes check-and-write one atomic step: of concurrent writers, one wins.
    const updated = await inTransaction(this.db, async (trx) => {
      const before = await this.audit.state(trx, customerId, true);
      const row = await trx.updateTable('customer')
        .set((eb) => ({ ...this.columnsOf(data), revision_number: eb('revision_number', '+', 1), modified_date: v.date(now) }))
        .where('customer_id', '=', customerId)
        .$call((q) => (scope ? q.where(scope) : q))
        .$if(revisionNumber != null, (q) => q.where('revision_number', '=', revisionNumber!))
        .returning(['revision_number', 'modified_date'])
        .executeTakeFirst();
      if (row) await this.audit.record(trx, customerId, operation, before, await this.audit.state(trx, customerId));
      return row;
    });
    if (updated) return Output.of({ revisionNumber: updated.revision_number, modifiedDate: v.toDate(updated.modified_date) });

    const current = await this.db.selectFrom('customer').select('revision_number').where('customer_id', '=', customerId)
      .$call((q) => (scope ? q.where(scope) : q)).executeTakeFirst();
    if (!current) this.notFound(customerId);
    else {
      currentErrors().add(MESSAGES.Entity_Concurrency({
        record: `Customer ${customerId}`, sent: revisionNumber, now: current.revision_number, property: 'revisionNumber',
      }));
    }
    return Output.of();
  }

  patch(customerId: number, data: Customer_PatchInput_Data): Promise<Output<Customer_UpdateOutput>> {
    return applyMergePatch({
      patch: data,
      read: () => this.read(customerId),
      toUpdate: updateFields,
      update: (merged) => this.write(customerId, merged, 'patch'),
    });
  }

  /**
   * Orders refer to customers: a customer with orders is not deleted (409 Entity_InUse). The database's foreign key
   * decides, not a count made before the delete, so an order created meanwhile can never be left without its customer.
   */
  async delete(customerId: number): Promise<Output> {
    let deleted: bigint;
    const scope = customersInScope();
    try {
      deleted = await inTransaction(this.db, async (trx) => {
        const before = await this.audit.state(trx, customerId, true);
        const { numDeletedRows } = await trx.deleteFrom('customer').where('customer_id', '=', customerId).$call((q) => (scope ? q.where(scope) : q))
          .executeTakeFirst();
        if (numDeletedRows > 0n) await this.audit.record(trx, customerId, 'delete', before);
        return numDeletedRows;
      });
    } catch (err) {
      if (!isForeignKeyViolation(err)) throw err;
      const { count } = await this.db.withTables<{ sales_order: { customer_id: number } }>().selectFrom('sales_order')
        .select((eb) => eb.fn.countAll<number | string>().as('count')).where('customer_id', '=', customerId).executeTakeFirstOrThrow();
      // The count covers every order, also those out of a scoped caller's reach: such a caller is told only that orders refer to it.
      const orders = scope ? 'sales orders refer' : `${Number(count)} sales order${Number(count) === 1 ? ' refers' : 's refer'}`;
      currentErrors().error('Functional', 'Entity_InUse', `Customer ${customerId} cannot be deleted: ${orders} to it.`, { status: 409 });
      return Output.of();
    }
    if (deleted === 0n) this.notFound(customerId);
    return Output.of();
  }

  history(customerId: number, page: HistoryPage = {}): Promise<Output<Customer_HistoryOutput[]>> {
    return readHistory(this.storage, customerHistory, customerId, page, this.options.maxRows);
  }
}

/** A write refused because another table's rows still refer to the row (SQLite and PostgreSQL codes). */
function isForeignKeyViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'SQLITE_CONSTRAINT_FOREIGNKEY' || code === '23503';
}
