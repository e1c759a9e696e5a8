import { expect } from 'chai';
import { indexNames, serviceSpec } from './spec.js';
import { migrationsFile } from './templates/migrations.js';
import { itemRouteFile, listRouteFile } from './templates/routes.js';
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


  describe('CN on long text fields through a trigram index', () => {
    const spec = serviceSpec('widget', [
      'title:text:max=50:filterable', 'code:text:max=49:sortable:filterable', 'note:text:filterable', 'remark:text:max=200:sortable',
    ], 'restlayer new service widget');

    it('indexes the filterable text fields without max or with max >= 50, and no shorter or unfiltered one', () => {
      const created = migrationsFile(spec).split('\n').filter((line) => line.includes('createFullTextIndex('));
      expect(created).to.deep.equal(["        await createFullTextIndex('title');", "        await createFullTextIndex('note');"]);
    });

    it('names those fields in the list definition\'s fullText, and a service without one has none', () => {
      expect(sqlServiceFile(spec)).to.include("\n  fullText: ['title', 'note'],\n  maxLength: { title: 50, code: 49 },\n};\n");
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

});
