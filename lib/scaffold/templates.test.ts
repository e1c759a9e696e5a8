import { expect } from 'chai';
import { documentSpec, totalName } from './child-spec.js';
import { firstMigration } from './declared-fields.js';
import { ScaffoldError } from './scaffold-error.js';
import { indexNames, serviceSpec } from './spec.js';
import { declarationFile, resourceProxyFile } from './templates/resource.js';
import { serviceFiles } from './files.js';

/** The scaffold's templates as text (test/scaffold/ builds and runs what they write, in a project, on both stores). */
describe('restlayer new service: what the templates write', () => {
  describe('CN on long text fields through a trigram index', () => {
    const spec = serviceSpec('widget', [
      'title:text:max=50:filterable', 'code:text:max=49:sortable:filterable', 'note:text:filterable', 'remark:text:max=200:sortable',
    ], 'restlayer new service widget');

    it('declares contains() on the filterable text fields without max or with max >= 50, and the first migration indexes their trigrams', () => {
      const declared = declarationFile(spec).split('\n').filter((line) => line.includes('.contains()')).map((line) => line.trim().split(':')[0]);
      expect(declared).to.deep.equal(['title', 'note']);
      const created = firstMigration(spec).split('\n').filter((line) => line.includes('createFullTextIndex(')).map((line) => line.trim());
      expect(created).to.deep.equal(["await widgetLists.createFullTextIndex('title');", "await widgetLists.createFullTextIndex('note');"]);
    });

    it('counts its FTS table, shadow tables, triggers and PostgreSQL index among the names the service takes', () => {
      const names = indexNames(spec);
      for (const name of ['widget_title_fts', 'widget_title_fts_data', 'widget_title_fts_insert', 'widget_title_fts_delete', 'widget_title_fts_update', 'ix_widget_title_trigram', 'widget_note_fts']) {
        expect(names).to.include(name);
      }
      expect(names.filter((name) => name.startsWith('widget_code') || name.includes('_code_trigram'))).to.deep.equal([]);
    });
  });

  describe('a child collection (issue 23, declared since issue 39)', () => {
    const spec = documentSpec('invoice', ['title:text:required'], 'restlayer new service invoice', {
      child: ['entry'],
      childField: ['entry:label:text:required:max=30', 'entry:amount:money:required', 'entry:lineTotal:money', 'entry:tax:money'],
      childTotal: ['entry:amount', 'entry:lineTotal', 'entry:tax:taxDue'],
    });

    it('names the child after parent and child (table invoice_entry, id invoiceEntryId), its array in the plural (entries)', () => {
      expect(spec.child).to.include({ table: 'invoice_entry', id: 'invoiceEntryId', idParam: '_invoiceEntryId', segment: 'entry', short: 'Entry', plural: 'entries' });
    });

    it('names a total <field>Total, one of a field that is a total already the plural of its stem, or as the command line says', () => {
      expect(spec.child?.totals.map((t) => [t.name, t.column])).to.deep.equal([['amountTotal', 'amount_total'], ['linesTotal', 'lines_total'], ['taxDue', 'tax_due']]);
      expect([totalName('amount'), totalName('lineTotal'), totalName('boxTotal'), totalName('Total')]).to.deep.equal(['amountTotal', 'linesTotal', 'boxesTotal', 'TotalTotal']);
    });

    it('refuses two totals of one name, and a name that is not camelCase, with one usage line', () => {
      const refusal = (childTotal: string[]) => {
        try {
          documentSpec('invoice', ['title:text'], 'x', { child: ['line'], childField: ['line:amount:money', 'line:tip:money'], childTotal });
        } catch (err) {
          if (err instanceof ScaffoldError) return `${err.kind}: ${err.message}`;
          throw err;
        }
        return 'accepted';
      };
      expect(refusal(['line:amount:sum', 'line:tip:sum'])).to.equal("usage: --child-total 'line:tip:sum': another total is named sum already; name this one (line:tip:<name>)");
      expect(refusal(['line:amount:Sum-1'])).to.equal("usage: --child-total 'line:amount:Sum-1': write line:<money field>[:<parent's total>], the total's name camelCase (e.g. line:lineTotal:subTotal)");
      expect(refusal(['line:amount:a:b'])).to.match(/^usage: --child-total 'line:amount:a:b': write line:/);
    });

    it('declares the child collection with its fields, the totals as sums of it, and the proxy its address', () => {
      const text = declarationFile(spec);
      expect(text).to.include("import { child, field, resource } from 'restlayer';")
        .and.include("const entries = child({\n  item: 'entry',\n  fields: {\n    label: field.text({ max: 30 }).required(),\n    amount: field.money().required(),\n")
        .and.include("    amountTotal: field.money().sum('entries', 'amount'),\n    linesTotal: field.money().sum('entries', 'lineTotal'),\n    taxDue: field.money().sum('entries', 'tax'),\n  },\n  children: { entries },\n");
      expect(resourceProxyFile(spec)).to.include("children: { entries: { item: 'entry', path: 'entry', key: 'invoiceEntryId' } }");
    });

    it('creates the child table in the first migration: its parent key deleted with the parent, the index by parent, the totals', () => {
      const migration = firstMigration(spec);
      expect(migration).to.include("createTable('invoice_entry')")
        .and.include("references('invoice.invoice_id').onDelete('cascade')")
        .and.include("createIndex('ix_invoice_entry_parent').on('invoice_entry').columns(['invoice_id', 'invoice_entry_id'])")
        .and.include("addColumn('lines_total', moneyType, (c) => c.notNull().defaultTo(0))");
    });
  });

  describe('options for what a business API needs beyond CRUD: derived fields, text-id lookups, actions (issue 39)', () => {
    const spec = documentSpec('invoice', [
      'currencyCode:lookup=currency:ids=text:max=3:filterable', 'freight:money', 'discount:money', 'net:money:derived=freight-discount:sortable',
    ], 'restlayer new service invoice', {
      child: ['line'], childField: ['line:quantity:integer:required', 'line:price:money:required', 'line:lineTotal:money:derived=quantity*price'],
      childTotal: ['line:lineTotal'], action: ['pay', 'cancel'],
    });
    const declaration = declarationFile(spec);

    it('declares a lookup with text ids and its length, and derived values in decimal arithmetic from the fields named', () => {
      expect(declaration).to.include("import { Decimal, action, child, field, resource } from 'restlayer';")
        .and.include("    currencyCode: field.lookup('currency', { id: 'text', max: 3 }).filter(),")
        .and.include("    net: field.money().derived(['freight', 'discount'], (v) => new Decimal(v.freight).minus(v.discount)).sortable(),")
        .and.include("    lineTotal: field.money().derived(['quantity', 'price'], (v) => new Decimal(v.quantity).times(v.price)),")
        .and.include("    linesTotal: field.money().sum('lines', 'lineTotal'),");
      const migration = firstMigration(spec);
      expect(migration).to.include("addColumn('currency_code', 'varchar(3)')").and.include("addColumn('line_total', moneyType)").and.include("addColumn('net', moneyType)");
    });

    it('declares each action with its summary and a run left to write; its route file and proxy entry beside', () => {
      expect(declaration).to.include([
        '  actions: {', '    pay: action({', "      summary: 'Pay an invoice.',",
        '      // What it changes: set fields of change.after (read-only ones too); change.fail(code, text) refuses it.', '      run(_change) {},', '    }),',
      ].join('\n'));
      expect(resourceProxyFile(spec)).to.include(", actions: { pay: true, cancel: true } });");
      expect(serviceFiles(spec, { services: 'services', routes: 'routes', tests: 'test', modules: 'services/index.ts' }).map((f) => f.path))
        .to.include.members(['routes/invoice/[_invoiceId]/pay.ts', 'routes/invoice/[_invoiceId]/cancel.ts']);
    });

    it('takes a multi-word action as --action mark-paid or markPaid: the key markPaid (declaration, routes group, proxy), the file mark-paid.ts', () => {
      for (const given of ['mark-paid', 'markPaid']) {
        const multi = documentSpec('invoice', ['title:text:required'], 'restlayer new service invoice', { action: [given, 'pay'] });
        expect(multi.actions).to.deep.equal(['markPaid', 'pay']);
        expect(declarationFile(multi)).to.include(['    markPaid: action({', "      summary: 'Mark paid an invoice.',"].join('\n'));
        expect(resourceProxyFile(multi)).to.include(', actions: { markPaid: true, pay: true } });');
        const files = serviceFiles(multi, { services: 'services', routes: 'routes', tests: 'test', modules: 'services/index.ts' });
        const route = files.find((f) => f.path === 'routes/invoice/[_invoiceId]/mark-paid.ts');
        expect(route?.content).to.include('export const { POST } = invoice.routes.markPaid;');
        expect(files.map((f) => f.path)).to.include('routes/invoice/[_invoiceId]/pay.ts');
      }
    });

    it('refuses, with one line, a derivation that cannot be made and an action named as a route or field', () => {
      const refusal = (fields: string[], args: Parameters<typeof documentSpec>[3] = {}) => {
        try {
          documentSpec('invoice', fields, 'x', args);
        } catch (err) {
          expect(err).to.be.instanceOf(ScaffoldError);
          return (err as Error).message;
        }
        throw new Error('not refused');
      };
      expect(refusal(['total:money:derived=a*b'])).to.include('a is no integer, decimal or money field given before total');
      expect(refusal(['a:money', 'b:money', 'c:money', 'total:money:derived=a*b+c'])).to.include('use one kind of operator');
      expect(refusal(['a:text', 'total:money:derived=a*a'])).to.include('a is no integer, decimal or money field');
      expect(refusal(['a:decimal', 'b:integer', 'c:integer:derived=a*b'])).to.include('an integer is derived from integers only (a is decimal)');
      expect(refusal(['a:money', 'total:money:required:derived=a+a'])).to.include('a derived field is computed on every write: not required, not unique');
      expect(refusal(['a:text:derived=a*b'])).to.include('derived applies to integer, decimal and money fields');
      expect(refusal(['c:lookup=currency:max=3'])).to.include('max=N applies to a lookup with ids=text only');
      expect(refusal(['title:text'], { action: ['history'] })).to.include("the record's history already");
      expect(refusal(['title:text'], { action: ['title'] })).to.include('a field is named so');
      expect(refusal(['title:text'], { action: ['Pay'] })).to.equal("--action 'Pay': an action's name is camelCase or kebab-case, letters and digits with a lower-case letter first (e.g. approve, markPaid or mark-paid)");
      for (const name of ['mark_paid', 'mark--paid', 'Mark-paid']) expect(refusal(['title:text'], { action: [name] })).to.include('camelCase or kebab-case');
      expect(refusal(['title:text'], { action: ['mark-2nd'] })).to.include('each word after the first starts with a letter');
      expect(refusal(['title:text'], { action: ['markPaid', 'mark-paid'] })).to.equal("--action 'mark-paid' is given twice (as markPaid)");
      expect(refusal(['title:text'], { child: ['sub-line'], childField: ['sub-line:note:text'], action: ['subLine'] })).to.include('the child collection is named so, or served at that path');
      expect(refusal(['title:text'], { child: ['line'], childField: ['line:note:text'], action: ['line'] })).to.include('the child collection is named so, or served at that path');
    });
  });
});
