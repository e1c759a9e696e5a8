import { expect } from 'chai';
import { criteriaToQuery } from 'restlayer/client';
import { OPERATORS, type Operator, arityOf } from 'restlayer';
import { salesOrderCriteria } from '../../services/sales-order/sales-order-models.js';

type Value = string | number | boolean | Date;

/** Sample values per field type, chosen to trip up an encoder: separators, %, _, +, spaces, non-ASCII, extremes. */
const samples: Record<string, Value[]> = {
  string: ['Acme & Sons', '50%_off', 'a=b+c?d#e', ' spaced out ', 'ünïcødé ✓', '', 'sort[0].fieldName', 'x'.repeat(300)],
  integer: [1, 5, -3, 0, 2_147_483_647],
  number: [0.5, -12.25, 100, 0, 1e21, 1.5e-7],
  money: [0.5, 12.25, 100, 0, 0.0001, 99999999999.9999, 0.6],
  date: [new Date('2024-02-29T00:00:00.000Z'), new Date('2023-12-31T23:59:59.999Z'), new Date(Date.UTC(2011, 4, 31, 14, 30, 15, 123)), new Date('1999-01-01T00:00:00Z')],
  boolean: [true, false],
};

/** Operators per field kind, as the README documents them. */
const comparisons: Operator[] = ['EQ', 'NEQ', 'In', 'NIn', 'LT', 'LE', 'GT', 'GE', 'BW', 'NBW', 'NL', 'NNL'];
const allowed: Record<string, readonly Operator[]> = { text: OPERATORS, list: comparisons, range: comparisons, boolean: ['EQ', 'NEQ', 'NL', 'NNL'] };

function valuesFor(type: string, op: Operator, shift: number): Value[] {
  const [min, max] = arityOf(op);
  const count = min === max ? min : 3;
  const pool = samples[type];
  return Array.from({ length: count }, (_, i) => pool[(shift + i) % pool.length]);
}

function roundTrip(criteria: Record<string, unknown>) {
  const qs = criteriaToQuery(criteria).toString();
  const parsed = salesOrderCriteria.parse(new URLSearchParams(qs));
  if (!parsed.ok) expect.fail(`${qs} was refused: ${parsed.messages.map((m) => m.message).join(' ')}`);
  // The parser marks amounts (field.moneyRange()) so the store binds them as it keeps money.
  const types: Record<string, { type: string } | undefined> = salesOrderCriteria.fields;
  const expected = Object.fromEntries(Object.entries(criteria).map(([k, v]) => [k, types[k]?.type === 'money' ? { ...(v as object), money: true } : v]));
  expect(parsed.value, qs).to.deep.equal(expected);
  return qs;
}

describe('client: criteria as a query string', () => {
  const fields = Object.entries(salesOrderCriteria.fields);

  it('covers every field kind and type of the sales order criteria', () => {
    expect(new Set(fields.map(([, spec]) => spec.kind))).to.deep.equal(new Set(['text', 'list', 'range', 'boolean']));
    expect(new Set(fields.map(([, spec]) => spec.type))).to.deep.equal(new Set(['string', 'integer', 'date', 'money', 'boolean']));
  });

  for (const [name, spec] of fields) {
    it(`round-trips ${name} (${spec.kind}, ${spec.type}) with every operator it takes`, () => {
      let checked = 0;
      for (const op of allowed[spec.kind]) {
        for (let shift = 0; shift < samples[spec.type].length; shift++) {
          roundTrip({ [name]: { operator: op, values: valuesFor(spec.type, op, shift) } });
          checked++;
        }
      }
      expect(checked).to.be.greaterThan(0);
    });
  }

  it('round-trips every field at once with paging, the total count and several sort keys', () => {
    const criteria: Record<string, unknown> = {};
    fields.forEach(([name, spec], i) => {
      const ops = allowed[spec.kind];
      const op = ops[i % ops.length];
      criteria[name] = { operator: op, values: valuesFor(spec.type, op, i) };
    });
    Object.assign(criteria, {
      skip: 20, take: 0, getTotalCount: false,
      sort: [{ fieldName: 'orderDate', sortDirection: 'Descending' }, { fieldName: 'customerName', sortDirection: 'Ascending' }, { fieldName: 'totalDue', sortDirection: 'Descending' }],
    });
    roundTrip(criteria);
    roundTrip({ getTotalCount: true, take: 1000 });
    roundTrip({});
  });

  it('writes the plain forms of the contract: one value alone, repeated values with their operator, ISO dates, booleans', () => {
    expect(decodeURIComponent(criteriaToQuery({ status: { operator: 'EQ', values: [5] } }).toString())).to.equal('status=5');
    expect(decodeURIComponent(criteriaToQuery({ status: { operator: 'In', values: [1, 5] } }).toString())).to.equal('status.operator=In&status=1&status=5');
    expect(decodeURIComponent(criteriaToQuery({
      orderDate: { operator: 'BW', values: [new Date('2024-01-01T00:00:00Z'), new Date('2024-01-31T00:00:00Z')] },
      onlineOrderFlag: { operator: 'EQ', values: [false] },
      customerName: { operator: 'NL', values: [] },
      sort: [{ fieldName: 'orderDate', sortDirection: 'Descending' }],
    }).toString())).to.equal('orderDate.operator=BW&orderDate=2024-01-01T00:00:00.000Z&orderDate=2024-01-31T00:00:00.000Z'
      + '&onlineOrderFlag=false&customerName.operator=NL&sort[0].fieldName=orderDate&sort[0].sortDirection=Descending');
  });

  it('refuses what has no query-string form instead of sending something else', () => {
    expect(() => criteriaToQuery({ status: 5 })).to.throw(TypeError, /status must be \{ operator, values \}/);
    expect(() => criteriaToQuery({ orderDate: { operator: 'EQ', values: [new Date('nonsense')] } })).to.throw(RangeError);
  });
});
