import { expect } from 'chai';
import { expectOk } from '../support/api.js';
import { type Json, type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';
import { scopedUser } from '../access/support.js';
import { orderWith, someProducts } from '../sales-order/lines-support.js';

const CSV = { Accept: 'text/csv' };

/** RFC 4180 read back, independently of the server's writer: records of fields, quotes undone. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"' && field === '' ) {
      for (i++; i < text.length; i++) {
        if (text[i] === '"' && text[i + 1] === '"') { field += '"'; i++; } else if (text[i] === '"') break; else field += text[i];
      }
    } else if (c === ',') { record.push(field); field = ''; } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field); records.push(record); record = []; field = ''; i++;
    } else field += c;
  }
  expect(field, 'the last record ends with CRLF').to.equal('');
  expect(record).to.deep.equal([]);
  return records;
}

/** A JSON list item's value as its CSV field reads: the JSON text of numbers and booleans, strings as they are. */
const asField = (value: Json | undefined) => (value == null ? '' : typeof value === 'string' ? value : JSON.stringify(value));

/** Contract part 15: `Accept: text/csv` on the list routes. */
describeStores('CSV export of lists (issue 41, part 15)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  it('GET /sales-order as CSV: the JSON list\'s rows, columns in the order of part 9, every matching row regardless of skip, take and MaxRows', async () => {
    const query = 'status=5&territoryId=4&territoryId=6&sort[0].fieldName=orderDate&sort[0].sortDirection=Descending';
    const csv = await server.call(`/sales-order?${query}&skip=3&take=5`, { headers: CSV });
    expect(csv.status).to.equal(200);
    expect(csv.headers.get('content-type')).to.equal('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).to.equal('attachment; filename="sales-order.csv"');
    const records = parseCsv(csv.text);
    expect(records[0]).to.deep.equal(['salesOrderId', 'salesOrderNumber', 'status', 'orderDate', 'dueDate', 'shipDate', 'customerId',
      'customerName', 'territoryId', 'salesPersonId', 'totalDue', 'onlineOrderFlag']);
    const total = Number(csv.headers.get('x-total-count'));
    expect(total).to.be.greaterThan(1000); // past MaxRows: the export is not cut there
    expect(records.length - 1).to.equal(total);
    // The same rows as the JSON list, page by page.
    const items: Record<string, Json>[] = [];
    for (let skip = 0; skip < total; skip += 1000) {
      const page = expectOk(await server.call(`/sales-order?${query}&skip=${skip}&take=1000&getTotalCount=true`));
      expect(page.totalCount).to.equal(total);
      items.push(...(page.result as Record<string, Json>[]));
    }
    expect(records.slice(1)).to.deep.equal(items.map((item) => records[0].map((column) => asField(item[column]))));
  });

  it('money as exact decimal text, dates in ISO 8601, booleans true/false, absent values empty', async () => {
    const { active } = await someProducts(server);
    const name = `Exact ${Date.now()}`;
    const customerId = expectOk(await server.call('/customer', { method: 'POST', body: { name } }), 201).result.customerId as number;
    const lines = [0.1, 0.2, 0.3].map((unitPrice) => ({ productId: active.id, orderQty: 1, unitPrice }));
    const orderId = await orderWith(server, lines, { customerId, onlineOrderFlag: false, shipDate: null });
    const records = parseCsv((await server.call(`/sales-order?customerName=${encodeURIComponent(name)}`, { headers: CSV })).text);
    expect(records).to.have.length(2);
    const row = Object.fromEntries(records[0].map((column, i) => [column, records[1][i]]));
    expect(row).to.include({ salesOrderId: String(orderId), totalDue: '0.6', onlineOrderFlag: 'false', shipDate: '', customerName: name });
    expect(row.orderDate).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('GET /customer as CSV: RFC 4180 quoting, and a text that would start a formula prefixed with \'', async () => {
    const tag = `Q${Date.now()}`;
    const names = [`${tag} "quoted", with comma`, `${tag} two\nlines`, `${tag} plain`];
    const risky = ['=HYPERLINK("x")', '+1', '-2', '@SUM(A1)', '\tTab', '\rReturn'].map((start) => `${start} ${tag}`);
    for (const name of [...names, ...risky]) expectOk(await server.call('/customer', { method: 'POST', body: { name } }), 201);
    const csv = await server.call(`/customer?name.operator=CN&name=${tag}&sort[0].fieldName=customerId`, { headers: { Accept: 'application/json;q=0.5, text/csv' } });
    expect(csv.status).to.equal(200);
    expect(csv.headers.get('content-disposition')).to.equal('attachment; filename="customer.csv"');
    const records = parseCsv(csv.text);
    expect(records[0].slice(0, 4)).to.deep.equal(['customerId', 'name', 'accountNumber', 'territoryId']);
    expect(records.slice(1).map((r) => r[1])).to.deep.equal([...names, ...risky.map((n) => `'${n}`)]);
    expect(csv.text).to.include(`"${tag} ""quoted"", with comma"`);
    // The ids are numbers, never prefixed.
    for (const r of records.slice(1)) expect(r[0]).to.match(/^\d+$/);
  });

  it('invalid criteria answer the JSON envelope (400); JSON stays the answer without Accept, with JSON preferred, and on other routes', async () => {
    const bad = await server.call('/sales-order?status.operator=XX&status=1', { headers: CSV });
    expect(bad.status).to.equal(400);
    expect(bad.headers.get('content-type')).to.match(/^application\/json/);
    expect(bad.body.messages[0].code).to.equal('Operator_NotSupported');
    for (const accept of [undefined, 'application/json', 'text/csv;q=0.4, application/json', '*/*']) {
      const reply = await server.call('/sales-order?take=2', { headers: accept ? { Accept: accept } : {} });
      expect(reply.headers.get('content-type'), accept).to.match(/^application\/json/);
      expect(reply.body.result, accept).to.have.length(2);
    }
    const one = await server.call('/sales-order/43659', { headers: CSV });
    expect(one.headers.get('content-type')).to.match(/^application\/json/);
    expect(one.body.result.salesOrderId).to.equal(43659);
  });

  it('a caller limited by a record scope exports only their records', async () => {
    const token = await scopedUser(server, `csv-sp-${Date.now()}`, ['SalesPerson'], { salesPersonId: '279' });
    const json = expectOk(await server.call('/sales-order?take=0&getTotalCount=true', { token }));
    expect(json.totalCount).to.be.greaterThan(0);
    const csv = await server.call('/sales-order', { token, headers: CSV });
    const records = parseCsv(csv.text);
    expect(Number(csv.headers.get('x-total-count'))).to.equal(json.totalCount);
    expect(records.length - 1).to.equal(json.totalCount);
    const column = records[0].indexOf('salesPersonId');
    expect(new Set(records.slice(1).map((r) => r[column]))).to.deep.equal(new Set(['279']));
  });

  it('RestAPI:MaxExportRows cuts the export; X-Total-Count still counts every match', async () => {
    const small = await startTestServer({ config: { RestAPI: { MaxExportRows: 25 } } });
    try {
      const csv = await small.call('/sales-order?status=5', { headers: CSV });
      expect(parseCsv(csv.text)).to.have.length(26);
      expect(Number(csv.headers.get('x-total-count'))).to.be.greaterThan(25);
    } finally {
      await small.stop();
    }
  });
});
