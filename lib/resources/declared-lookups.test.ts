import { expect } from 'chai';
import { LookupCache } from '../lookup/lookup-cache.js';
import type { Storage } from '../storage/storage.js';
import { checkLookups, registerLookups } from './declared-lookups.js';

describe('lookup tables a resource declares', () => {
  it('each gives its entries or a load function, one of them, with no id twice (ignoring case unless caseSensitive)', () => {
    expect(() => checkLookups('invoice', { currency: {} })).to.throw(/currency: give its entries or a load function/);
    expect(() => checkLookups('invoice', { currency: { entries: [], load: async () => [] } })).to.throw(/one of them/);
    expect(() => checkLookups('invoice', { currency: { entries: [{ id: 'EUR', text: 'Euro' }, { id: 'eur', text: 'euro' }] } })).to.throw(/the id eur is given twice/);
    expect(() => checkLookups('invoice', { currency: { caseSensitive: true, entries: [{ id: 'EUR', text: 'Euro' }, { id: 'eur', text: 'euro' }] } })).to.not.throw();
  });

  it('a loader reads the store each time its table loads: after a flush, the entries as the store has them', async () => {
    const storage = { name: 'a store' } as unknown as Storage;
    let calls = 0;
    const cache = new LookupCache();
    registerLookups(cache, storage, {
      grade: { load: async (given) => { calls++; expect(given).to.equal(storage); return [{ id: calls, text: `grade ${calls}`, isActive: false }]; } },
    });
    expect((await cache.get('grade'))!.table).to.deep.equal({ type: 'grade', caseSensitive: false, data: [{ id: 1, text: 'grade 1', isActive: false, attributes: {} }] });
    expect((await cache.get('grade'))!.table.data[0].id).to.equal(1);
    await cache.remove('grade');
    expect((await cache.get('grade'))!.table.data[0].id).to.equal(2);
  });

  it('a type registered already (by the layer, a module or another resource; ignoring case) stops the start', () => {
    const cache = new LookupCache().register('operators', async () => ({ type: 'operators', caseSensitive: false, data: [] }));
    const storage = {} as Storage;
    expect(() => registerLookups(cache, storage, { Operators: { entries: [] } }, 'invoice')).to.throw(/invoice: lookup table Operators: a table operators is registered already/);
    registerLookups(cache, storage, { currency: { entries: [] } }, 'invoice');
    expect(() => registerLookups(cache, storage, { currency: { entries: [] } }, 'bill')).to.throw(/bill: lookup table currency/);
  });
});
