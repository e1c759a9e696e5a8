import { expect } from 'chai';
import { CompiledQuery, type Kysely } from 'kysely';
import { type ListCriteria, type Storage, fromEnd, listLimits, listSql, withErrorScope } from 'restlayer';
import { asCaller, queryPlan } from 'restlayer/testing';
import { customer } from '../../services/customer/customer.js';
import { salesOrder } from '../../services/sales-order/sales-order.js';
import { growOrders } from '../support/grow-orders.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { testProvider } from '../support/test-stores.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

/** Enough orders that a scan of them, or of their customers, shows in the plan. */
const ORDERS = 100_000;
const TAKE = 50;

interface Shape {
  name: string;
  service: 'sales-order' | 'customer';
  query: string;
  /** The keys come in an index's order: their plan sorts nothing (elsewhere a sort of the filtered keys is fine). */
  sorted?: boolean;
  /**
   * Customers are few (a fifteenth of the orders): the planner may rightly read them all, SQLite in key order until
   * the page is full, PostgreSQL to hash them for the page's rows.
   */
  scansCustomers?: boolean;
  /** The keys' plan seeks to the cursor's place: an index condition holds this column's range. */
  seeks?: RegExp;
  /** The page lies past the middle: lib/storage/list-query.ts reads it from the end, in reverse order. */
  fromEnd?: boolean;
  /** SQLite: the keys come from walking this index alone (the narrowest there is); no part reads the table's own b-tree. */
  keyIndex?: string;
  /** CN on the customer's name: the count finds the customers through the name's trigram index. */
  contains?: boolean;
  /** Asked by a SalesPerson (record scope `own`, salesPersonId SCOPED_PERSON): the scope's condition is in every part. */
  scoped?: boolean;
}

/** The sales person of the scoped shapes. */
const SCOPED_PERSON = 279;

const newest = 'sort[0].fieldName=orderDate&sort[0].sortDirection=Descending';
const shapes: Shape[] = [
  // SQLite shows the walk of its primary key (the rowid) as `SCAN sales_order`: in key order, it stops when the page is full.
  { name: 'first page', service: 'sales-order', query: '', sorted: true },
  { name: 'status, newest first, with the count', service: 'sales-order', query: `status=5&${newest}&getTotalCount=true`, sorted: true },
  { name: 'the same, a page near the end', service: 'sales-order', query: `status=5&${newest}&skip=DEEP` },
  // The deepest an offset walks with no filter: a tenth of the table, from the end.
  { name: 'a page near the end, no filter', service: 'sales-order', query: 'skip=ORDERSDEEP', sorted: true, fromEnd: true, keyIndex: 'ix_sales_order_list_key' },
  { name: 'a page near the end, no filter', service: 'customer', query: 'skip=CUSTOMERSDEEP', sorted: true, scansCustomers: true, fromEnd: true, keyIndex: 'ix_customer_list_key' },
  { name: 'the same, the cursor page near the end', service: 'sales-order', query: `status=5&${newest}&cursor=CURSOR`, sorted: true, seeks: /order_date *</ },
  { name: 'the cursor page near the end, by id', service: 'sales-order', query: 'cursor=IDCURSOR', seeks: /(sales_order_id|rowid) *>/ },
  { name: 'customers by name, the cursor page near the end', service: 'customer', query: 'sort[0].fieldName=name&cursor=NAMECURSOR', sorted: true, scansCustomers: true, seeks: /name *>/ },
  { name: 'sorted by customer name', service: 'sales-order', query: 'sort[0].fieldName=customerName', sorted: true },
  { name: 'sorted by customer name, descending', service: 'sales-order', query: 'sort[0].fieldName=customerName&sort[0].sortDirection=Descending', sorted: true },
  { name: 'order number starts with, with the count', service: 'sales-order', query: 'salesOrderNumber=SO54&salesOrderNumber.operator=SW&getTotalCount=true' },
  { name: 'one month, by total due descending', service: 'sales-order', query: 'orderDate=2024-03-01&orderDate=2024-03-31T23:59:59Z&sort[0].fieldName=totalDue&sort[0].sortDirection=Descending' },
  { name: 'territory, with the count', service: 'sales-order', query: `territoryId=4&${newest}&getTotalCount=true` },
  { name: 'sales person, with the count', service: 'sales-order', query: 'salesPersonId=276&getTotalCount=true' },
  { name: 'customer name starts with, with the count', service: 'sales-order', query: 'customerName=Bike&customerName.operator=SW&getTotalCount=true' },
  { name: 'customers by name', service: 'customer', query: 'sort[0].fieldName=name', sorted: true, scansCustomers: true },
  { name: 'customer name starts with, with the count', service: 'customer', query: 'name=ab&name.operator=SW&getTotalCount=true', scansCustomers: true },
  { name: 'customer name contains, with the count', service: 'sales-order', query: 'customerName=umar&customerName.operator=CN&getTotalCount=true', contains: true },
  { name: 'customer name contains, with the count', service: 'customer', query: 'name=umar&name.operator=CN&getTotalCount=true', scansCustomers: true, contains: true },
  // A SalesPerson's lists (issue 24): the scope is one more condition, served by an index that starts with the sales person.
  { name: 'scoped: first page, with the count', service: 'sales-order', query: 'getTotalCount=true', sorted: true, scoped: true },
  { name: 'scoped: newest first, with the count', service: 'sales-order', query: `${newest}&getTotalCount=true`, sorted: true, scoped: true },
  { name: 'scoped: status, newest first, with the count', service: 'sales-order', query: `status=5&${newest}&getTotalCount=true`, sorted: true, scoped: true },
  { name: 'scoped: status, newest first, the cursor page near the end', service: 'sales-order', query: `status=5&${newest}&cursor=SCOPEDCURSOR`, sorted: true, scoped: true, seeks: /order_date *</ },
  { name: 'scoped: by total due descending', service: 'sales-order', query: 'sort[0].fieldName=totalDue&sort[0].sortDirection=Descending', sorted: true, scoped: true },
  { name: 'scoped: by total due, a page near the end', service: 'sales-order', query: 'sort[0].fieldName=totalDue&skip=SCOPEDDEEP', sorted: true, scoped: true },
  // The caller's customers come from their orders (the sales person's index), then are sorted: a sales person's customers are few.
  { name: 'scoped: customers by name, with the count', service: 'customer', query: 'sort[0].fieldName=name&getTotalCount=true', scansCustomers: true, scoped: true },
];

/** The index conditions of a plan, as text: PostgreSQL's Index Cond lines, SQLite's SEARCH steps. */
async function seekConditions(storage: Storage, query: CompiledQuery): Promise<string[]> {
  if (testProvider === 'postgres') {
    const db = storage.db as unknown as Kysely<unknown>;
    const { rows } = await db.executeQuery<{ 'QUERY PLAN': string }>(CompiledQuery.raw(`explain ${query.sql}`, [...query.parameters]));
    return rows.map((r) => r['QUERY PLAN']).filter((line) => /Index Cond:/.test(line));
  }
  return (await queryPlan(storage, query)).filter((step) => step.startsWith('SEARCH'));
}

/** A step that reads every row of a listed table instead of an index's range. */
const fullScan = (shape: Shape, part: string, plan: string[]) => plan.filter((step) => {
  if (testProvider === 'postgres') return /^Seq Scan on sales_order$/.test(step) || (!shape.scansCustomers && /^Seq Scan on customer$/.test(step));
  // The first page's keys walk the rowid in order (no sort): they stop when the page is full. The rows that follow are sorted.
  // So do a CN page's when its count is large (lib/storage/list-query.ts, FULL_TEXT_PAGE_MATCHES): it tests each row's customer.
  if ((shape.query === '' || shape.contains) && /^SCAN sales_order$/.test(step)) return part === 'keys' && plan.some(sorts);
  return /^SCAN sales_order$/.test(step) || (!shape.scansCustomers && /^SCAN (customer|c)$/.test(step));
});
const namesIndex = (step: string) => /\b(ix|ux)_|_pkey\b|PRIMARY KEY/.test(step);
const sorts = (step: string) => (testProvider === 'postgres' ? /^Sort\b/.test(step) : /TEMP B-TREE/.test(step));

describeOneStore(`list plans at ${ORDERS.toLocaleString('en')} orders (${testProvider})`, WHY_ONE_STORE.scale, function () {
  this.timeout(600_000);
  let server: TestServer;
  let storage: Storage;
  let totals: Record<string, number>;
  let deepSkip: number;
  let placeholders: Record<string, string>;
  let scopedToken: string;

  before(async () => {
    // Growing copies 100,000 orders and their lines in a few statements: on a loaded machine past the default query timeout.
    server = await startTestServer({ logLevel: 'error', config: { Storage: { QueryTimeoutSeconds: 300 }, RestAPI: { RequestTimeoutSeconds: 310 } } });
    storage = server.infrastructure.storage;
    const grown = await growOrders(storage, ORDERS);
    expect(grown).to.be.at.least(ORDERS);
    const counted = async (path: string) => (await server.call(`${path}take=0&getTotalCount=true`)).body.totalCount!;
    totals = { 'sales-order': await counted('/sales-order?'), customer: await counted('/customer?') };
    deepSkip = Math.floor(await counted('/sales-order?status=5&') * 0.9);
    const added = await withErrorScope(() => server.services.users.add({ userName: 'plans', password: 'plans-password-1', roles: ['SalesPerson'] }, { salesPersonId: String(SCOPED_PERSON) }));
    expect(added.result, JSON.stringify(added.messages)).to.not.equal(undefined);
    scopedToken = server.token({ sub: 'plans', role: ['SalesPerson'] });
    const scopedCount = await counted(`/sales-order?salesPersonId=${SCOPED_PERSON}&`);
    // Cursors of rows near the end of three lists, as a client paging forward would hold them.
    const cursorAt = async (path: string) => (await server.call(`${path}&take=1&cursor=`)).body.nextCursor!;
    placeholders = {
      DEEP: String(deepSkip),
      ORDERSDEEP: String(Math.floor(totals['sales-order'] * 0.9)),
      CUSTOMERSDEEP: String(Math.floor(totals.customer * 0.9)),
      CURSOR: await cursorAt(`/sales-order?status=5&${newest}&skip=${deepSkip}`),
      IDCURSOR: await cursorAt(`/sales-order?skip=${ORDERS - 100}`),
      NAMECURSOR: await cursorAt(`/customer?sort[0].fieldName=name&skip=5000`),
      SCOPEDDEEP: String(Math.floor(scopedCount * 0.8)),
      SCOPEDCURSOR: (await server.call(`/sales-order?status=5&${newest}&skip=${Math.floor(scopedCount / 6 * 0.9)}&take=1&cursor=`, { token: scopedToken })).body.nextCursor!,
    };
  });
  after(() => server?.stop());

  for (const shape of shapes) {
    it(`${shape.service}: ${shape.name} reads through indexes`, async () => {
      const query = shape.query.replace(/[A-Z]*(DEEP|CURSOR)\b/g, (name) => encodeURIComponent(placeholders[name]));
      const reply = await server.call(`/${shape.service}?take=${TAKE}&${query}`, shape.scoped ? { token: scopedToken } : {});
      expect(reply.status, reply.text).to.equal(200);
      expect(reply.body.result).to.have.length.greaterThan(0);

      const search = new URLSearchParams(query);
      const parsed = shape.service === 'sales-order' ? salesOrder.models.criteria.parse(search) : customer.models.criteria.parse(search);
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.messages));
      const definition = shape.service === 'sales-order' ? salesOrder.list : customer.list;
      const criteria = parsed.value as ListCriteria<string>;
      // A deep page's window, as the list reads it (its rows are tested over HTTP in test/core/list-cursor.test.ts).
      const window = shape.fromEnd ? fromEnd(totals[shape.service], criteria.skip ?? 0, TAKE) : undefined;
      // The server's own cursor keys: its cursors are signed with them. A scoped shape's SQL is built as the caller's.
      const build = () => listSql(definition, criteria, storage.dialect, TAKE, window, false, listLimits(server.config).cursorKeys);
      const built = shape.scoped
        ? await asCaller({ permission: `${shape.service}.read`, scopes: ['own'], attributes: { salesPersonId: String(SCOPED_PERSON) } }, build)
        : build();
      if (shape.scoped) expect(built.keys.compile(storage.db).sql).to.match(/sales_person_id/);
      const db = storage.db as unknown as Kysely<unknown>;
      for (const [part, sql] of Object.entries({ keys: built.keys, page: built.page, count: built.count })) {
        if (!sql) continue;
        const plan = await queryPlan(storage, sql.compile(db));
        const context = `${part} plan:\n  ${plan.join('\n  ')}`;
        expect(fullScan(shape, part, plan), context).to.deep.equal([]);
        expect(plan.some((step) => namesIndex(step) || (fullScan(shape, part, [step]).length === 0 && /^SCAN (sales_order|customer)$/.test(step))), context).to.equal(true);
        if (shape.sorted && part === 'keys') expect(plan.filter(sorts), context).to.deep.equal([]);
        // The scope's indexes (sales-order 0008-scope-indexes) serve lists limited to a sales person only: a list
        // without one never skip-scans them (SQLite did, before they were partial: 180 ms for a month by amount at 1M).
        if (!shape.scoped && !/salesPersonId/.test(shape.query)) expect(plan.filter((step) => /ix_sales_order_sales_person_/.test(step)), context).to.deep.equal([]);
        if (shape.keyIndex && testProvider === 'sqlite') {
          expect(plan.filter((step) => step === `SCAN ${definition.alias}`), context).to.deep.equal([]);
          if (part === 'keys') expect(plan, context).to.include(`SCAN ${definition.alias} USING COVERING INDEX ${shape.keyIndex}`);
        }
        // A page may also walk the list's order and test each customer (PostgreSQL does, for orders): the count may not.
        if (shape.contains && part === 'count') {
          const trigram = testProvider === 'postgres' ? /using ix_customer_name_trigram$/ : /^SCAN customer_name_fts VIRTUAL TABLE INDEX/;
          expect(plan.some((step) => trigram.test(step)), context).to.equal(true);
        }
        if (shape.seeks && part === 'keys') {
          const conditions = await seekConditions(storage, sql.compile(db));
          expect(conditions.some((c) => shape.seeks!.test(c)), `${context}\n  seeks: ${conditions.join('; ')}`).to.equal(true);
        }
        if (process.env.RESTLAYER_SHOW_PLANS) console.log(`    ${shape.name} ${context}`);
      }
    });
  }
});
