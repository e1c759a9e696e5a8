import assert from 'node:assert/strict';
import type { ResourceField } from '../resources/model.js';
import { type QueryValue, expectError, expectOk, qs } from './assertions.js';
import type { SuiteRun } from './resource-suite-context.js';
import { type Input, comparable } from './resource-suite-samples.js';

/** How many records the list tests make (besides any the store holds already). */
const RECORDS = 12;

/** A criterion to try: its query, and which records it must answer. */
interface Check {
  query: [string, QueryValue][];
  matches: (record: Input) => boolean;
  /** The check answers no record, and that is what it tests (NNL on a field no record holds). */
  none?: true;
}

/**
 * The list: every record, paged by skip/take and by cursor, counted, sorted by every sortable field, filtered by every
 * filterable one. What each query must answer is worked out here from the records as read one by one, so records the
 * store held before (a module's seed) are expected too.
 */
export function listTests(run: SuiteRun): void {
  const { model } = run;
  const key = model.key;
  /** Every record, in id order, as read by id (a read holds every field, listed or not). */
  let records: Input[] = [];
  const ids = (items: readonly Input[]) => run.idsOf(items);

  before(async () => {
    for (let n = 0; n < RECORDS; n++) await run.create();
    const listed = await run.listAll();
    records = await Promise.all(ids(listed).map((id) => run.read(id)));
  });

  const list = async (query: string) => expectOk(await run.call(`${run.path}?${query}`));

  it('lists every record by id, each item holding the listed fields of its read; pages with skip and take; getTotalCount counts every match', async () => {
    const all = ids(records);
    assert.deepEqual(all, [...all].sort((a, b) => a - b));
    const listed = [key, ...model.fields.filter((f) => f.spec.listed).map((f) => f.name)];
    const items = records.map((r) => Object.fromEntries(listed.filter((name) => name in r).map((name) => [name, r[name]])));
    assert.deepEqual((await list(`take=${all.length}`)).result, items);
    assert.deepEqual(ids((await list('skip=3&take=4')).result), all.slice(3, 7));
    const counted = await list('take=2&getTotalCount=true');
    assert.deepEqual([ids(counted.result), counted.totalCount], [all.slice(0, 2), all.length]);
    assert.deepEqual((await list('take=0&getTotalCount=true')).totalCount, all.length);
    assert.deepEqual((await list(`skip=${all.length}`)).result, []);
  });

  it('cursor pages walk every record once, in order; a cursor that was changed is a 400 Input_InvalidCursor', async () => {
    const walked: number[] = [];
    let cursor = '';
    for (let page = 0; page <= records.length; page++) {
      const body = await list(`take=5&cursor=${encodeURIComponent(cursor)}`);
      walked.push(...ids(body.result));
      if (!body.nextCursor) break;
      cursor = body.nextCursor;
    }
    assert.deepEqual(walked, ids(records));
    expectError(await run.call(`${run.path}?take=5&cursor=${encodeURIComponent(`${cursor.slice(0, -2)}xx`)}`), 400, 'Input_InvalidCursor', 'cursor');
  });

  const sortable = [key, ...model.fields.filter((f) => f.spec.sortable).map((f) => f.name)];
  it(`sorts by each sortable field (${sortable.join(', ')}), both ways, ties broken by id in the same direction`, async () => {
    for (const name of sortable) {
      const field = model.fields.find((f) => f.name === name);
      const asc = ids((await list(qs({ 'sort[0].fieldName': name, 'sort[0].sortDirection': 'Ascending', take: records.length }))).result);
      const desc = ids((await list(qs({ 'sort[0].fieldName': name, 'sort[0].sortDirection': 'Descending', take: records.length }))).result);
      assert.deepEqual([...asc].sort((a, b) => a - b), ids(records), `${name}: every record`);
      // Records without a value sort where the store puts them; those with one must be in order.
      const valued = records.filter((r) => r[name] !== undefined);
      const byJs = !field || orderedByJs(field, valued);
      const valueOf = new Map(valued.map((r) => [r[key] as number, comparable(r[name])]));
      const [upward, downward] = [asc, desc].map((got) => got.filter((id) => valueOf.has(id)));
      if (byJs) {
        assert.deepEqual(upward, ids(sorted(valued, name, key, 'Ascending')), `${name} Ascending`);
        assert.deepEqual(downward, ids(sorted(valued, name, key, 'Descending')), `${name} Descending`);
      } else {
        // A text order JavaScript cannot know (collations differ): each way is the other's reverse, ties by id each way.
        const runs = (order: number[]) => order.reduce<number[][]>((out, id) => {
          const last = out.at(-1);
          if (last && valueOf.get(last[0]) === valueOf.get(id)) last.push(id);
          else out.push([id]);
          return out;
        }, []);
        const [up, down] = [runs(upward), runs(downward)];
        assert.deepEqual(up.map((r) => valueOf.get(r[0])), down.map((r) => valueOf.get(r[0])).reverse(), `${name}: Descending reverses Ascending`);
        assert.equal(new Set(up.map((r) => valueOf.get(r[0]))).size, up.length, `${name}: equal values are listed together`);
        for (const r of up) assert.deepEqual(r, [...r].sort((a, b) => a - b), `${name} Ascending: ties by id`);
        for (const r of down) assert.deepEqual(r, [...r].sort((a, b) => b - a), `${name} Descending: ties by id`);
      }
    }
  });

  const filters = model.fields.filter((f) => f.spec.filter);
  for (const f of filters) {
    it(`filters on ${f.name} as its criteria say, answering exactly the matching records and counting them`, async () => {
      const checks = checksOf(f, records);
      assert.ok(checks.length, `${f.name}: the records hold values to filter on${f.spec.input === 'none' ? '' : ' (give resourceSuite a sample that sets it)'}`);
      for (const { query, matches, none } of checks) {
        const q = qs(query);
        const expected = ids(records.filter(matches));
        assert.ok(none || expected.length, `${q} matches some records`);
        const body = await list(`${q}&getTotalCount=true&take=${records.length}`);
        assert.deepEqual(ids(body.result), expected, q);
        assert.equal(body.totalCount, expected.length, q);
      }
    });
  }

  it('refuses an unknown criterion and an unknown sort field, each on its property', async () => {
    expectError(await run.call(`${run.path}?notAField=1`), 400, 'Input_UnknownProperty', 'notAField');
    expectError(await run.call(`${run.path}?${qs({ 'sort[0].fieldName': 'notAField' })}`), 400, 'Input_InvalidValue', 'sort[0].fieldName');
  });
}

/**
 * Whether JavaScript orders these values as every store does: numbers, instants and booleans always; texts only when
 * they are capitals and digits alone (collations differ on case, spaces and punctuation).
 */
function orderedByJs(field: ResourceField, records: readonly Input[]): boolean {
  const type = field.value.type;
  if (type !== 'text' && !(type === 'lookup' && field.value.lookup?.id === 'text')) return true;
  return records.every((r) => /^[A-Z0-9]*$/.test(String(r[field.name])));
}

/** `records` in the order the server lists them: by `name`, then by id in the same direction. */
function sorted(records: readonly Input[], name: string, key: string, direction: 'Ascending' | 'Descending'): Input[] {
  const sign = direction === 'Ascending' ? 1 : -1;
  return [...records].sort((a, b) => sign * (compareValues(comparable(a[name]), comparable(b[name])) || (a[key] as number) - (b[key] as number)));
}

function compareValues(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return Number(a) - Number(b);
}

/**
 * The criteria a field's kind takes (lib/resources/models.ts, criterionOf), each with what it must match, and NL/NNL
 * where some records have no value. A read-only field that no record holds (one only a rule or a scoped creator sets,
 * which a sample cannot give) is tried with NL (every record) and NNL (none) alone; a field a sample can set must
 * hold values.
 */
function checksOf(f: ResourceField, records: readonly Input[]): Check[] {
  const name = f.name;
  const values = [...new Set(records.map((r) => r[name]).filter((v) => v !== undefined))];
  const isNull: Check = { query: [[`${name}.operator`, 'NL']], matches: (r) => r[name] === undefined };
  const notNull: Check = { query: [[`${name}.operator`, 'NNL']], matches: (r) => r[name] !== undefined };
  if (!values.length) return f.spec.input === 'none' && records.length ? [isNull, { ...notNull, none: true }] : [];
  const presence = records.some(isNull.matches) ? [isNull, notNull] : [];
  return [...valueChecks(f, records, values), ...presence];
}

/** The criteria on the values the records hold. */
function valueChecks(f: ResourceField, records: readonly Input[], values: unknown[]): Check[] {
  const name = f.name;
  const pick = (i: number) => values[Math.min(i, values.length - 1)];
  const v = f.value;
  switch (v.type) {
    case 'integer': case 'decimal': case 'money': case 'date': {
      const sortedValues = [...values].sort((a, b) => compareValues(comparable(a), comparable(b)));
      const [low, high] = [sortedValues[Math.floor(sortedValues.length / 4)], sortedValues[Math.floor((3 * sortedValues.length) / 4)]];
      const at = (r: Input) => comparable(r[name]) as number;
      const checks: Check[] = [
        { query: [[name, String(pick(1))]], matches: (r) => at(r) === comparable(pick(1)) },
        { query: [[name, String(low)], [name, String(high)]], matches: (r) => r[name] !== undefined && at(r) >= (comparable(low) as number) && at(r) <= (comparable(high) as number) },
        { query: [[name, String(low)], [`${name}.operator`, 'GT']], matches: (r) => r[name] !== undefined && at(r) > (comparable(low) as number) },
      ];
      return checks.filter((c) => records.some(c.matches));
    }
    case 'boolean':
      return [true, false].map((flag) => ({ query: [[name, flag]] as [string, QueryValue][], matches: (r: Input) => r[name] === flag })).filter((c) => records.some(c.matches));
    case 'lookup': case 'reference':
      if (v.type === 'reference' || v.lookup?.id !== 'text') {
        return [{ query: [[name, String(pick(0))], [name, String(pick(1))]], matches: (r) => r[name] === pick(0) || r[name] === pick(1) }];
      }
      return [{ query: [[name, String(pick(1))]], matches: (r) => r[name] === pick(1) }];
    default: {
      const text = String(pick(1));
      const needle = text.slice(-1);
      return [
        { query: [[name, text]], matches: (r) => r[name] === text },
        { query: [[name, needle], [`${name}.operator`, 'CN']], matches: (r) => typeof r[name] === 'string' && (r[name] as string).toLowerCase().includes(needle.toLowerCase()) },
        { query: [[name, text.slice(0, 2)], [`${name}.operator`, 'SW']], matches: (r) => typeof r[name] === 'string' && (r[name] as string).toLowerCase().startsWith(text.slice(0, 2).toLowerCase()) },
      ];
    }
  }
}
