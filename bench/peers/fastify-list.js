// The list page hand-rolled on Fastify 5 + @fastify/jwt + better-sqlite3 (issue 25's "hand-rolled" peer): what a team
// writing that one endpoint by hand would serve. Prepared statements on the same SQLite file (its own copy, as every
// process has), the page and its count per request, the same bytes as restlayer's answer; pino on (LOG_FILE) and the
// token verified in an onRequest hook, as peers/fastify.js does.
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import { announce, host, port } from './common.js';
import { verifyBearerTokens } from './fastify-jwt-hook.js';

const db = new Database(process.env.DATABASE_PATH, { fileMustExist: true });
db.pragma('journal_mode = WAL');
// Money is kept as integer ten-thousandths once the sample has order lines (restlayer's 0007); before, as a real.
const [{ type: totalDueType }] = db.prepare("select type from pragma_table_info('sales_order') where name = 'total_due'").all();
const moneyUnits = /^integer$/i.test(totalDueType) ? 10_000 : 1;

const columns = { salesOrderId: 'so.sales_order_id', orderDate: 'so.order_date', dueDate: 'so.due_date', totalDue: 'so.total_due', status: 'so.status' };
const select = `select so.sales_order_id, so.sales_order_number, so.status, so.order_date, so.due_date, so.ship_date, so.customer_id,
  c.name as customer_name, so.territory_id, so.sales_person_id, so.total_due, so.online_order_flag
  from sales_order so join customer c on c.customer_id = so.customer_id`;
// One prepared page statement per sort (ties broken by the id in the same direction, as restlayer's lists do).
const pages = new Map();
function pageStatement(field, descending, filtered) {
  const key = `${field} ${descending} ${filtered}`;
  let statement = pages.get(key);
  if (!statement) {
    const direction = descending ? 'desc' : 'asc';
    const order = field === 'salesOrderId' ? `so.sales_order_id ${direction}` : `${columns[field]} ${direction}, so.sales_order_id ${direction}`;
    statement = db.prepare(`${select}${filtered ? ' where so.status = ?' : ''} order by ${order} limit ? offset ?`);
    pages.set(key, statement);
  }
  return statement;
}
const countByStatus = db.prepare('select count(*) as n from sales_order where status = ?');
const countAll = db.prepare('select count(*) as n from sales_order');

/** restlayer's list item: its property order, absent (not null) where the order has no value. */
function listItem(r) {
  return {
    salesOrderId: r.sales_order_id,
    salesOrderNumber: r.sales_order_number,
    status: r.status,
    orderDate: r.order_date,
    dueDate: r.due_date,
    shipDate: r.ship_date ?? undefined,
    customerId: r.customer_id,
    customerName: r.customer_name,
    territoryId: r.territory_id ?? undefined,
    salesPersonId: r.sales_person_id ?? undefined,
    totalDue: r.total_due / moneyUnits,
    onlineOrderFlag: r.online_order_flag === 1,
  };
}

const badRequest = (message) => ({ messages: [{ code: 'Input_Invalid', message, severity: 'Error', type: 'Input' }] });
const wholeNumber = (text, fallback) => (text === undefined ? fallback : /^\d+$/.test(text) ? Number(text) : NaN);

const app = Fastify({ logger: process.env.LOG_FILE ? { level: 'info', file: process.env.LOG_FILE } : false });
await verifyBearerTokens(app);
app.get('/sales-order', async (request, reply) => {
  const q = request.query;
  const take = wholeNumber(q.take, 100);
  const skip = wholeNumber(q.skip, 0);
  const status = q.status === undefined ? undefined : wholeNumber(q.status, undefined);
  const field = q['sort[0].fieldName'] ?? 'salesOrderId';
  const direction = q['sort[0].sortDirection'] ?? 'Ascending';
  if (!(take >= 1 && take <= 1000) || !(skip >= 0) || Number.isNaN(status) || !columns[field] || !['Ascending', 'Descending'].includes(direction)) {
    return reply.code(400).send(badRequest('Invalid list parameters.'));
  }
  const filtered = status !== undefined;
  const rows = pageStatement(field, direction === 'Descending', filtered).all(...(filtered ? [status] : []), take, skip);
  const body = { result: rows.map(listItem), messages: [] };
  if (q.getTotalCount === 'true') body.totalCount = (filtered ? countByStatus.get(status) : countAll.get()).n;
  reply.header('content-type', 'application/json; charset=utf-8');
  return body;
});
await app.listen({ port, host });
announce(app.server.address());
