import { expect } from 'chai';
import { documentSpec } from './child-spec.js';
import { indexNames, serviceSpec } from './spec.js';
import { childItemRouteFile } from './templates/child-routes.js';
import { modelsFile } from './templates/models.js';
import { proxyFile } from './templates/proxy.js';
import { migrationsFile } from './templates/migrations.js';
import { moduleFile } from './templates/module.js';
import { childBytes, itemRouteFile, listRouteFile } from './templates/routes.js';
import { scopesFile } from './templates/scopes.js';
import { sqlServiceFile } from './templates/sql-service.js';

/** The scaffold's templates as text (test/scaffold/ builds and runs what they write, in a project and in a packed one). */
describe('restlayer new service: what the templates write', () => {
  it('says "an" before a vowel in the routes\' summaries: Create an invoice', () => {
    const spec = serviceSpec('invoice', ['title:text'], 'restlayer new service invoice');
    const at = { modules: '../../services/index.js', service: (name: string) => `../../services/invoice/${name}.js` };
    expect(listRouteFile(spec, at)).to.include("summary: 'Create an invoice.'");
    expect(itemRouteFile(spec, at)).to.include("summary: 'Update an invoice; a stale").and.include("summary: 'Delete an invoice.'");
    expect(listRouteFile(serviceSpec('purchase-order', ['title:text'], 'x'), at)).to.include("summary: 'Create a purchase order.'");
  });


  it('names each route\'s permission: <service>.read, .create, .update (PUT, PATCH and every child write), .delete; spreads the hook\'s scopes', () => {
    const spec = documentSpec('invoice', ['title:text'], 'restlayer new service invoice', { child: ['line'], childField: ['line:amount:money'] });
    const at = { modules: '../../services/index.js', service: (name: string) => `../../services/invoice/${name}.js` };
    const permissions = (text: string) => [...text.matchAll(/export const (\w+) = route\(\{\n.*\n {2}permission: '([^']+)',\n {2}\.\.\.invoiceRouteScopes,/g)].map((m) => `${m[1]} ${m[2]}`);
    expect(permissions(listRouteFile(spec, at))).to.deep.equal(['GET invoice.read', 'POST invoice.create']);
    expect(permissions(itemRouteFile(spec, at))).to.deep.equal(['GET invoice.read', 'PUT invoice.update', 'PATCH invoice.update', 'DELETE invoice.delete']);
    expect(permissions(childItemRouteFile(spec, at))).to.deep.equal(['GET invoice.read', 'PUT invoice.update', 'PATCH invoice.update', 'DELETE invoice.update']);
  });

  it('declares how other services refer to its records: read with <service>.read and its scopes (resolveReference)', () => {
    const text = scopesFile(serviceSpec('purchase-order', ['title:text'], 'restlayer new service purchase-order'));
    expect(text).to.include([
      'export const purchaseOrderReference: RecordReference = {',
      "  table: 'purchase_order',",
      "  key: 'purchase_order_id',",
      "  readPermission: 'purchase-order.read',",
      '  scopes: purchaseOrderScopes,',
      '};',
    ].join('\n')).and.include('resolveReference(db, purchaseOrderReference, id)');
  });

  describe('CN on long text fields through a trigram index', () => {
    const spec = serviceSpec('widget', [
      'title:text:max=50:filterable', 'code:text:max=49:sortable:filterable', 'note:text:filterable', 'remark:text:max=200:sortable',
    ], 'restlayer new service widget');

    it('indexes the filterable text fields without max or with max >= 50, and no shorter or unfiltered one', () => {
      const created = migrationsFile(spec).split('\n').filter((line) => line.includes('createFullTextIndex('));
      expect(created).to.deep.equal(["        await createFullTextIndex('title');", "        await createFullTextIndex('note');"]);
    });

    it('names those fields in the list definition\'s fullText, and a service without one has none', () => {
      expect(sqlServiceFile(spec)).to.include("\n  fullText: ['title', 'note'],\n  maxLength: { title: 50, code: 49 },\n").and.include('\n  scopes: widgetScopes,\n};\n');
      const short = serviceSpec('widget', ['code:text:max=49:filterable'], 'restlayer new service widget');
      expect(sqlServiceFile(short)).to.not.include('fullText');
      expect(migrationsFile(short)).to.not.include('createFullTextIndex');
    });

    it('counts its FTS table, shadow tables, triggers and PostgreSQL index among the names the service takes', () => {
      const names = indexNames(spec);
      for (const name of ['widget_title_fts', 'widget_title_fts_data', 'widget_title_fts_insert', 'widget_title_fts_delete', 'widget_title_fts_update', 'ix_widget_title_trigram', 'widget_note_fts']) {
        expect(names).to.include(name);
      }
      expect(names.filter((name) => name.startsWith('widget_code') || name.includes('_code_trigram'))).to.deep.equal([]);
    });
  });

  describe('money fields (issue 23)', () => {
    const spec = serviceSpec('invoice', ['price:money:required:sortable:filterable', 'deposit:money'], 'restlayer new service invoice');

    it('validates with money(), filters with field.moneyRange(), stores in the dialect\'s money column through values.money/toMoney', () => {
      expect(modelsFile(spec)).to.include('  price: money(),\n').and.include('  deposit: maybe(money()),\n').and.include('    price: field.moneyRange(),\n');
      expect(migrationsFile(spec)).to.include('money: moneyType').and.include("addColumn('price', moneyType, (c) => c.notNull())");
      const service = sqlServiceFile(spec);
      expect(service).to.include('price: v.money(data.price),').and.include('deposit: data.deposit == null ? null : v.money(data.deposit),')
        .and.include('price: v.toMoney(r.price),').and.include('deposit: r.deposit == null ? undefined : v.toMoney(r.deposit),');
    });
  });

  describe('a child collection (issue 23)', () => {
    const spec = documentSpec('invoice', ['title:text:required'], 'restlayer new service invoice', {
      child: ['entry'], childField: ['entry:label:text:required:max=30', 'entry:amount:money:required'], childTotal: ['entry:amount'],
    });
    const at = { modules: '../../../services/index.js', service: (name: string) => `../../../../services/invoice/${name}.js` };

    it('names the child after parent and child (table invoice_entry, id invoiceEntryId), its array in the plural (entries)', () => {
      expect(spec.child).to.include({ table: 'invoice_entry', id: 'invoiceEntryId', idParam: '_invoiceEntryId', segment: 'entry', short: 'Entry', plural: 'entries' });
      expect(spec.child?.totals.map((t) => [t.name, t.column])).to.deep.equal([['amountTotal', 'amount_total']]);
    });

    it('reads the record with its children and totals, and creates it with optional children', () => {
      // The record's read by id is kept compiled, with its totals.
      expect(sqlServiceFile(spec)).to.include("const invoiceById = keptQuery((db: Kysely<Tables & InvoiceTables>, p: { invoiceId: number }) => {")
        .and.include(".select([...listColumns, 'amount_total', 'revision_number', 'modified_date'])").and.include('const [r] = await invoiceById(this.db, { invoiceId });');
      const models = modelsFile(spec);
      expect(models).to.include('  entries: array(InvoiceEntryRead),\n').and.include('  amountTotal: money(),\n')
        .and.include('export const InvoiceCreateData = model({ ...fields, entries: optional(array(InvoiceEntryItemData)) });');
    });

    it('writes children through writeDocument, totals them in the store, and serves them below the record', () => {
      const service = sqlServiceFile(spec);
      expect(service).to.include("eb.fn.sum<number | string | null>('amount').as('amount')").and.include("columns: { amount_total: values.money(wire.amountTotal, 'amountTotal') }")
        .and.include('await writeDocument(this.storage, this.db, this.document, { parentId: invoiceId, childId: invoiceEntryId, revisionNumber }');
      expect(childItemRouteFile(spec, at)).to.include("operation: 'IInvoiceService.deleteEntry',").and.include('  query: InvoiceEntryDeleteQuery,')
        .and.include("summary: 'Remove an entry; the query\\'s revisionNumber is the invoice\\'s;");
      expect(proxyFile(spec)).to.include("  readEntries: { verb: 'GET', path: '/invoice/{_invoiceId}/entry' },");
    });

    it('caps the children at Documents:MaxLines (issue 37): the document, its create checked before any work, the create route\'s body sized from the cap', () => {
      const service = sqlServiceFile(spec);
      expect(service).to.include("child: { table: 'invoice_entry', key: 'invoice_entry_id', parentKey: 'invoice_id', entity: 'Invoice entry', property: 'entries' },")
        .and.include('    maxChildren: maxLines,').and.include('this.document = invoiceDocument(storage.values, options.maxLines);')
        .and.include('if (tooManyChildren(this.document, data.entries?.length ?? 0)) return Output.of();')
        .and.include('export type InvoiceServiceOptions = ListLimits & DocumentLimits;');
      expect(moduleFile(spec)).to.include('new SqlInvoiceService(storage, { ...listLimits(config), ...documentLimits(config) })');
      // label: 30 characters of up to 3 bytes, amount: a number; with names and punctuation, rounded up to 64.
      expect(childBytes(spec.child!)).to.equal(192);
      expect(listRouteFile(spec, at)).to.include('  maxBody: documentBody(InvoiceEntryItemData, 192),');
      const plain = serviceSpec('invoice', ['title:text'], 'x');
      expect(listRouteFile(plain, at)).to.not.include('maxBody');
      expect(moduleFile(plain)).to.include('listLimits(config)),').and.not.include('documentLimits');
    });
  });
});
