import { expect } from 'chai';
import { field } from '../resources/field.js';
import { child } from '../resources/declaration.js';
import { resource } from '../resources/resource.js';
import { describeStep, migrationFile } from './migration-file.js';
import { planSchema } from './schema-plan.js';
import { EMPTY_SCHEMA, type SchemaSnapshot } from './schema-snapshot.js';

/** The plans of `restlayer migration make` against schemas written out by hand (test/scaffold/migration-make.test.ts runs it for real). */
describe('migration make: what a declaration asks of a schema', () => {
  const note = resource({ name: 'note', fields: { title: field.text({ max: 80 }).required().filter(), code: field.text({ max: 12 }).unique({ ignoreCase: true }) } });
  /** The schema the first migration of `note` makes, as SQLite reports it; `change` edits its columns. */
  const made = (change: (columns: Map<string, { type: string; notNull: boolean }>) => void = () => {}): SchemaSnapshot => {
    const columns = new Map([
      ['note_id', { type: 'integer', notNull: true }], ['title', { type: 'varchar(80)', notNull: true }], ['code', { type: 'varchar(12)', notNull: false }],
      ['revision_number', { type: 'integer', notNull: true }], ['modified_date', { type: 'text', notNull: true }],
    ]);
    change(columns);
    const objects = new Map(['ix_note_title', 'ix_note_title_folded', 'ix_note_list_key', 'note_list_change_insert'].map((n): [string, string] => [n, `create index ${n}`]));
    objects.set('ux_note_code', 'CREATE UNIQUE INDEX ux_note_code on note (lower(code))');
    return { tables: new Map([['note', columns]]), objects, indexes: [] };
  };
  const steps = (schema: SchemaSnapshot, allowDrop = false) => planSchema([note.model], schema, { allowDrop });

  it('a new table with every index on an empty schema; nothing on the schema that has them', () => {
    expect(steps(EMPTY_SCHEMA).steps.map(describeStep)).to.deep.equal([
      'table note', 'index ix_note_title (lists sort or filter on title)', 'index ix_note_title_folded (prefix filters on title)',
      'unique index ux_note_code (ignoring case)', 'index ix_note_list_key (SQLite: deep pages in key order)', 'change tracking of note (exact counts)',
    ]);
    expect(steps(made())).to.deep.equal({ steps: [], withheld: [] });
  });

  it('a type change and an extra column are withheld without --allow-drop, and dropped (the index first) with it, said in the file', () => {
    const schema = made((c) => {
      c.set('title', { type: 'text', notNull: true });
      c.set('old_note', { type: 'text', notNull: false });
    });
    expect(steps(schema)).to.deep.equal({
      steps: [],
      withheld: ['note.title: its type changes from text to varchar(80) (a drop and an add: its values go)', 'note.old_note: no field of the declaration is stored in it'],
    });
    const allowed = steps(schema, true).steps;
    expect(allowed.map(describeStep)).to.deep.equal([
      'drops note.title (its type changes from text to varchar(80) (a drop and an add: its values go))', 'column note.title',
      'drops note.old_note (no field of the declaration is stored in it)',
      'index ix_note_title (lists sort or filter on title)', 'index ix_note_title_folded (prefix filters on title)',
    ]);
    const text = migrationFile(allowed, 'restlayer migration make --allow-drop');
    expect(text).to.include('// It DROPS data (made with --allow-drop): note.title, note.old_note.')
      .and.include("await db.schema.dropIndex('ix_note_title').ifExists().execute();\n      await db.schema.dropIndex('ix_note_title_folded').ifExists().execute();\n      await db.schema.alterTable('note').dropColumn('title').execute();")
      .and.include("// title is required, but the records made before this migration have no value: the column takes nulls.");
  });

  it('an index of another name serves a list when it leads with the column, or with its folded form for a prefix', () => {
    const schema = made();
    const objects = schema.objects as Map<string, string>;
    objects.delete('ix_note_title');
    objects.delete('ix_note_title_folded');
    expect(steps(schema).steps.map(describeStep)).to.deep.equal([
      'index ix_note_title (lists sort or filter on title)', 'index ix_note_title_folded (prefix filters on title)',
    ]);
    const named = {
      ...schema,
      indexes: [
        { name: 'ux_note_title', table: 'note', first: 'title', sql: 'CREATE UNIQUE INDEX ux_note_title on note (title)' },
        { name: 'ix_title_lower', table: 'note', sql: 'CREATE INDEX "ix_title_lower" on "note" (lower("title"))' },
      ],
    };
    expect(steps(named).steps).to.deep.equal([]);
  });

  it('a unique index whose case rule changed is made again, without a flag', () => {
    const schema = made();
    (schema.objects as Map<string, string>).set('ux_note_code', 'CREATE UNIQUE INDEX ux_note_code on note (code)');
    const { steps: plan } = steps(schema);
    expect(plan.map(describeStep)).to.deep.equal(['unique index ux_note_code (ignoring case), replacing the one there']);
    expect(migrationFile(plan, 'x')).to.include("await db.schema.dropIndex('ux_note_code').execute();\n      await sql`create unique index ux_note_code on note (lower(code))`.execute(db);");
  });

  it("a child collection's table: its key, its parent's key deleted with the parent, its fields and the index by parent", () => {
    const invoice = resource({
      name: 'invoice',
      fields: { total: field.money().sum('lines', 'amount') },
      children: { lines: child({ item: 'line', fields: { amount: field.money().required(), note: field.text() } }) },
    });
    const { steps: plan } = planSchema([invoice.model], EMPTY_SCHEMA);
    expect(plan.map(describeStep)).to.include.members(['table invoice', 'table invoice_line', 'index ix_invoice_line_parent (the children of one record: read, summed and deleted by parent)']);
    expect(migrationFile(plan, 'x')).to.include([
      "      await db.schema.createTable('invoice_line')",
      "        .addColumn('invoice_line_id', 'integer', (c) => dialect.identity(c))",
      "        .addColumn('invoice_id', 'integer', (c) => c.notNull().references('invoice.invoice_id').onDelete('cascade'))",
      "        .addColumn('amount', moneyType, (c) => c.notNull())",
      "        .addColumn('note', 'text')",
      '        .execute();',
    ].join('\n')).and.include("await db.schema.createIndex('ix_invoice_line_parent').on('invoice_line').columns(['invoice_id', 'invoice_line_id']).execute();")
      .and.include("addColumn('total', moneyType, (c) => c.notNull().defaultTo(0))");
  });

  it('a derived field or a total added to tables with rows: the records made before get their values (deriveStored), once, last', () => {
    const declare = (computed: boolean) => resource({
      name: 'invoice',
      fields: { freight: field.money(), ...(computed ? { total: field.money().sum('lines', 'amount') } : {}) },
      children: { lines: child({ item: 'line', fields: {
        quantity: field.integer().required(), price: field.money().required(),
        ...(computed ? { amount: field.money().derived(['quantity', 'price'], (v) => v.quantity * v.price) } : {}),
      } }) },
    });
    const tables = new Map<string, Map<string, { type: string; notNull: boolean }>>();
    const { steps: first } = planSchema([declare(false).model], EMPTY_SCHEMA);
    expect(first.map((s) => s.kind)).to.not.include('derive');
    for (const step of first) {
      if (step.kind === 'create-table') tables.set(step.table, new Map([[step.key, { type: 'integer', notNull: true }], ...step.columns.map((c): [string, { type: string; notNull: boolean }] => [c.name, { type: c.type.sqlite, notNull: c.notNull }])]));
    }
    const { steps: next } = planSchema([declare(true).model], { tables, objects: new Map(), indexes: [] });
    const derive = next.filter((s) => s.kind === 'derive');
    expect(derive.map(describeStep)).to.deep.equal(['the values of invoice.total, invoice_line.amount for the invoice records made before, as a write computes them']);
    expect(next.at(-1)).to.equal(derive[0]);
    const file = migrationFile(next, 'x');
    expect(file).to.include("import { type Kysely, type Migration, type StorageDialect, deriveStored, listIndexes, trackListChanges } from 'restlayer';\nimport { invoice } from '../invoice.js';");
    expect(file).to.include("      await deriveStored(db, dialect, invoice, ['invoice.total', 'invoice_line.amount']);\n    },");
    // Where the declaration is not found, the file says what to write instead of importing it.
    const elsewhere = migrationFile(next.map((s) => (s.kind === 'derive' ? { ...s, declaration: undefined } : s)), 'x');
    expect(elsewhere).to.not.include("from '../invoice.js'");
    expect(elsewhere).to.include('// The declaration of invoice is not where the scaffold puts it: import it and call await deriveStored(');
  });
});
