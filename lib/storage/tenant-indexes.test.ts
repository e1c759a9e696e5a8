import { expect } from 'chai';
import { tenantTwinOf } from './tenant-indexes.js';

describe('tenantTwinOf: the tenant-led twin of a list index', () => {
  it('leads SQLite and PostgreSQL statements with the tenant column, the rest as it was', () => {
    expect(tenantTwinOf('CREATE INDEX "ix_so_status" ON "sales_order" ("status", "deleted_at")', 'ix_so_status', 'tenant_id'))
      .to.deep.equal({ name: 'ix_so_status_tenant', definition: 'CREATE INDEX "ix_so_status_tenant" ON "sales_order" (tenant_id, "status", "deleted_at")' });
    expect(tenantTwinOf('CREATE INDEX ix_c ON public.customer USING btree (lower((name)::text)) INCLUDE (deleted_at) WHERE (deleted_at IS NULL)', 'ix_c', 'tenant_id'))
      .to.deep.equal({ name: 'ix_c_tenant', definition: 'CREATE INDEX ix_c_tenant ON public.customer USING btree (tenant_id, lower((name)::text)) INCLUDE (deleted_at) WHERE (deleted_at IS NULL)' });
  });

  it('with rangesLast (SQLite), an index led by an expression takes the tenant last; one led by a column still first', () => {
    expect(tenantTwinOf('CREATE INDEX "ix_c_name_folded" on "customer" (lower("name"), "deleted_at")', 'ix_c_name_folded', 'tenant_id', true))
      .to.deep.equal({ name: 'ix_c_name_folded_tenant', definition: 'CREATE INDEX "ix_c_name_folded_tenant" on "customer" (lower("name"), "deleted_at", tenant_id)' });
    expect(tenantTwinOf('create index ix_f on t (lower(a)) where deleted_at is null', 'ix_f', 'tenant_id', true)!.definition)
      .to.equal('create index ix_f_tenant on t (lower(a), tenant_id) where deleted_at is null');
    expect(tenantTwinOf('CREATE INDEX "ix_so_status" ON "sales_order" ("status", "deleted_at")', 'ix_so_status', 'tenant_id', true)!.definition)
      .to.equal('CREATE INDEX "ix_so_status_tenant" ON "sales_order" (tenant_id, "status", "deleted_at")');
  });

  it('none for a unique index, a trigram one, one that names the tenant already, a twin; a long name is cut to 63 characters', () => {
    expect(tenantTwinOf('CREATE UNIQUE INDEX ux ON customer (tenant_id, lower(account_number))', 'ux', 'tenant_id')).to.equal(undefined);
    expect(tenantTwinOf('CREATE INDEX ix_t ON public.customer USING gin (name gin_trgm_ops)', 'ix_t', 'tenant_id')).to.equal(undefined);
    expect(tenantTwinOf('create index ix_k on customer ("tenant_id", customer_id)', 'ix_k', 'tenant_id')).to.equal(undefined);
    expect(tenantTwinOf('create index ix_a_tenant on customer (tenant_id, a)', 'ix_a_tenant', 'tenant_id')).to.equal(undefined);
    // Placed by its migration after the columns a probe compares with = (services/sales-order 0012-tenant-probe).
    expect(tenantTwinOf('CREATE INDEX ix_sp ON public.sales_order USING btree (sales_person_id, customer_id, tenant_id, sales_order_id) INCLUDE (deleted_at) WHERE (sales_person_id IS NOT NULL)', 'ix_sp', 'tenant_id')).to.equal(undefined);
    expect(tenantTwinOf('CREATE INDEX "ix_sp" ON "sales_order" ("sales_person_id", "customer_id", "tenant_id")', 'ix_sp', 'tenant_id')).to.equal(undefined);
    // Only the key columns count: a tenant column included, or named in the condition, is no place in the order.
    expect(tenantTwinOf('create index ix_i on t (a) include (tenant_id) where tenant_id <> \'\'', 'ix_i', 'tenant_id')!.definition)
      .to.equal('create index ix_i_tenant on t (tenant_id, a) include (tenant_id) where tenant_id <> \'\'');
    expect(tenantTwinOf('create index ix_p on t (tenant_id_old, a)', 'ix_p', 'tenant_id')!.definition).to.equal('create index ix_p_tenant on t (tenant_id, tenant_id_old, a)');
    const long = `ix_${'x'.repeat(70)}`;
    expect(tenantTwinOf(`create index ${long} on t (a)`, long, 'tenant_id')!.name).to.have.length(63);
  });
});
