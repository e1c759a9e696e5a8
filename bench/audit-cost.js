// The cost of audit per write (issue 24 item 4): the sample's writes through the service, in this process (no HTTP,
// so the figure is the write's own), with audit and with the audit calls replaced by nothing, in interleaved rounds,
// on SQLite and PostgreSQL. Sequential writes: µs per write is the write's latency, and the difference is what audit
// adds to it (the reads of the record before and after, the totals computed for the entry, the insert).
// Usage: npm run build, then node bench/audit-cost.js [--writes N] [--rounds R] [--store sqlite|postgres|both]
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { writes: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '3' }, store: { type: 'string', default: 'both' } } });
const writes = Number(values.writes);
const rounds = Number(values.rounds);
const root = new URL('../dist/', import.meta.url);
const { startTestServer } = await import(new URL('lib/testing/index.js', root).href);
const { withErrorScope } = await import(new URL('lib/index.js', root).href);
const { application } = await import(new URL('services/index.js', root).href);
const { OrderAudit } = await import(new URL('services/sales-order/sales-order-audit.js', root).href);
const { CustomerAudit } = await import(new URL('services/customer/customer-audit.js', root).href);

/** Audit off: the writes run as they would without it (the same transactions, no reads for the entry, no insert). */
const real = { audited: OrderAudit.prototype.audited, record: OrderAudit.prototype.record, state: CustomerAudit.prototype.state, crecord: CustomerAudit.prototype.record };
function audit(on) {
  OrderAudit.prototype.audited = on ? real.audited : (_trx, _id, _op, _lines, work) => work();
  CustomerAudit.prototype.state = on ? real.state : async () => undefined;
  CustomerAudit.prototype.record = on ? real.crecord : async () => {};
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function bench(storage) {
  const server = await startTestServer({ application, storage, redis: false, sampleData: false, logLevel: 'error' });
  try {
    const s = server.services;
    const ok = async (fn) => {
      const out = await withErrorScope(fn);
      if (out.result === undefined) throw new Error(JSON.stringify(out.messages));
      return out.result;
    };
    const customer = await ok(() => s.customer.create({ name: 'Bench' }));
    const products = (await ok(() => s.lookup.read('product'))).table?.data ?? (await ok(() => s.lookup.read('product'))).data;
    const productId = products.find((p) => p.isActive).id;
    const order = await ok(() => s.salesOrder.create({ customerId: customer.customerId, status: 1, onlineOrderFlag: true, lines: [{ productId, orderQty: 1 }] }));
    const [line] = await ok(() => s.salesOrder.readLines(order.salesOrderId));
    const kinds = {
      'order PATCH': (i) => s.salesOrder.patch(order.salesOrderId, { comment: `c${i}` }),
      'line PATCH': (i) => s.salesOrder.patchLine(order.salesOrderId, line.salesOrderDetailId, { orderQty: 1 + (i % 50) }),
      'customer PATCH': (i) => s.customer.patch(customer.customerId, { name: `Bench ${i}` }),
    };
    const results = {};
    for (let round = 0; round <= rounds; round++) {
      for (const [kind, write] of Object.entries(kinds)) {
        for (const on of [false, true]) {
          audit(on);
          const n = round ? writes : 100; // round 0 warms up
          const started = process.hrtime.bigint();
          const cpu = process.cpuUsage();
          for (let i = 0; i < n; i++) await ok(() => write(i));
          const us = Number(process.hrtime.bigint() - started) / 1000 / n;
          const { user, system } = process.cpuUsage(cpu);
          if (round) {
            (results[`${kind} ${on ? 'on' : 'off'}`] ??= []).push(us);
            (results[`${kind} ${on ? 'on' : 'off'} cpu`] ??= []).push((user + system) / n);
          }
        }
      }
    }
    audit(true);
    console.log(`\n${storage}: µs per write (wall clock; this process's CPU), median of ${rounds} rounds of ${writes} sequential writes`);
    for (const kind of Object.keys(kinds)) {
      const [off, on, offCpu, onCpu] = ['off', 'on', 'off cpu', 'on cpu'].map((mode) => median(results[`${kind} ${mode}`]));
      console.log(`  ${kind.padEnd(15)} without audit ${off.toFixed(0).padStart(6)} µs (CPU ${offCpu.toFixed(0)}) · with ${on.toFixed(0).padStart(6)} µs (CPU ${onCpu.toFixed(0)})`
        + ` · audit adds ${(on - off).toFixed(0).padStart(5)} µs (CPU ${(onCpu - offCpu).toFixed(0)})`);
    }
  } finally {
    await server.stop();
  }
}

for (const storage of values.store === 'both' ? ['sqlite', 'postgres'] : [values.store]) await bench(storage);
