import { expect } from 'chai';
import { sqliteValues } from '../../storage/sql-values.js';
import { field } from '../field.js';
import { resource } from '../resource.js';
import { TableIo } from './table-io.js';
import { recordVersions } from './version-tag.js';

/** A record that shows another resource's field (`via`, by a reference it may change) and a table's (`joined`). */
const owner = resource({ name: 'owner', fields: { name: field.text({ max: 50 }).required() } });
const pet = resource({
  name: 'pet',
  fields: {
    ownerId: field.reference(owner).required(),
    ownerName: field.via('ownerId', owner.fields.name),
    kindId: field.integer().required(),
    kindName: field.joined({ table: 'kind', key: 'kind_id', column: 'name', on: 'kindId' }),
  },
});

describe('record ETags from versions (lib/resources/runtime/version-tag.ts)', () => {
  const versions = recordVersions(pet.model, new TableIo(sqliteValues, pet.model, pet.model.table), [], sqliteValues, 'shape');
  const row = (changes: Record<string, unknown> = {}) => ({
    pet_id: 7, owner_id: 1, kind_id: 2, revision_number: 3, modified_date: '2026-11-30T05:00:00.000Z', v__owner_id_ref: 4, v__generation: 9, ...changes,
  });

  it('is made of the revision, the modified instant, the shown record\'s revision and the joined table\'s generation', () => {
    const tag = versions.tagOf(row());
    expect(tag).to.match(/^"[\w-]+"$/);
    expect(versions.tagOf(row())).to.equal(tag);
    for (const changed of [{ revision_number: 4 }, { modified_date: '2026-11-30T05:00:00.001Z' }, { v__owner_id_ref: 5 }, { v__generation: 10 }]) {
      expect(versions.tagOf(row(changed)), JSON.stringify(changed)).to.not.equal(tag);
    }
  });

  it('is none while the joined table counts no changes: the body is digested instead', () => {
    expect(versions.tagOf(row({ v__generation: null }))).to.equal(undefined);
  });

  it('another shape of the same rows (a field, a derivation, the children\'s cap) is another tag', () => {
    const other = recordVersions(pet.model, new TableIo(sqliteValues, pet.model, pet.model.table), [], sqliteValues, 'another shape');
    expect(other.tagOf(row())).to.not.equal(versions.tagOf(row()));
  });

  it('a write answers the tag of the row it wrote, but none when it changed which record a via shows', () => {
    const before = row();
    const after = row({ revision_number: 4, modified_date: '2026-11-30T05:01:00.000Z', kind_id: 3 });
    expect(versions.writtenTag(before, after)).to.equal(versions.tagOf(after));
    expect(versions.writtenTag(before, { ...after, owner_id: 2 })).to.equal(undefined);
  });

  it('a write answers no tag of its own once the service replaced read (its tags are what that read answers)', () => {
    const replaced = recordVersions(pet.model, new TableIo(sqliteValues, pet.model, pet.model.table), [], sqliteValues, 'shape');
    const after = row({ revision_number: 4 });
    expect(replaced.writtenTag(row(), after)).to.equal(versions.tagOf(after));
    replaced.readReplaced();
    expect(replaced.writtenTag(row(), after)).to.equal(undefined);
    expect(replaced.tagOf(after)).to.equal(versions.tagOf(after));
  });
});
