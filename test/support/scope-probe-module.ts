import { type Kysely, NOTHING, type StorageDialect, child, field, resource, serviceModule, sql } from 'restlayer';

/**
 * Test-only (test/access/scope-reach-writes.test.ts): a declared header with items whose record scopes a write can
 * leave: `own` on a field a PUT or PATCH may change (the caller's user attribute `owner`), `few` on how many items it
 * holds (at most the caller's attribute `most`), which an item's write changes.
 */
export const scopeProbe = resource({
  name: 'scope-probe',
  fields: {
    owner: field.text({ max: 10 }).required().sortable().filter(),
    note: field.text({ max: 40 }),
  },
  children: {
    items: child({
      item: 'item',
      fields: { label: field.text({ max: 20 }).required() },
    }),
  },
  scopes: {
    own: {
      description: "probes whose owner is the caller's user attribute owner",
      where: (alias, attributes) => (attributes.owner ? sql<boolean>`${sql.ref(`${alias}.owner`)} = ${attributes.owner}` : NOTHING),
    },
    few: {
      description: "probes with at most as many items as the caller's user attribute most",
      reads: ['scope_probe_item'],
      where: (alias, attributes) => (/^\d+$/.test(attributes.most ?? '')
        ? sql<boolean>`(select count(*) from scope_probe_item as i where i.scope_probe_id = ${sql.ref(`${alias}.scope_probe_id`)}) <= ${Number(attributes.most)}`
        : NOTHING),
    },
  },
});

/** Its tables, on either store. */
export const scopeProbeModule = serviceModule({
  name: 'scope-probe-test',
  resources: [scopeProbe],
  migrations: (dialect: StorageDialect) => ({
    '0001-scope-probe': {
      async up(db: Kysely<unknown>) {
        await db.schema.createTable('scope_probe')
          .addColumn('scope_probe_id', 'integer', (c) => dialect.identity(c))
          .addColumn('owner', 'varchar(10)', (c) => c.notNull())
          .addColumn('note', 'varchar(40)')
          .addColumn('revision_number', 'integer', (c) => c.notNull())
          .addColumn('modified_date', dialect.types.date, (c) => c.notNull())
          .execute();
        await db.schema.createTable('scope_probe_item')
          .addColumn('scope_probe_item_id', 'integer', (c) => dialect.identity(c))
          .addColumn('scope_probe_id', 'integer', (c) => c.notNull().references('scope_probe.scope_probe_id'))
          .addColumn('label', 'varchar(20)', (c) => c.notNull())
          .execute();
        await db.schema.createIndex('ix_scope_probe_item_scope_probe_id').on('scope_probe_item').column('scope_probe_id').execute();
      },
    },
  }),
});
