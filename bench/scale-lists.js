// Lists at scale (issue 15): grows the sample (12k orders) step by step to the sizes given, by INSERT ... SELECT of the
// orders and customers there are, and times the five list shapes over HTTP against a running server at each
// size. Runs on the build (npm run build first) and on the store the tests use:
//   node bench/scale-lists.js [--sizes 12000,100000,1000000] [--runs 21]
//   RESTLAYER_TEST_STORAGE=postgres node bench/scale-lists.js ...     (a scratch database, dropped at the end)
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';

const { values: args } = parseArgs({ options: { sizes: { type: 'string', default: '12000,100000,1000000' }, runs: { type: 'string', default: '21' } } });
const sizes = args.sizes.split(',').map(Number);
const runs = Number(args.runs);

const dist = new URL('../dist/', import.meta.url);
const { startTestServer } = await import(new URL('test/support/server.js', dist).href);
const { growOrders } = await import(new URL('test/support/grow-orders.js', dist).href);
const { dropTestDatabases, testProvider } = await import(new URL('test/support/test-stores.js', dist).href);

const newest = 'status=5&sort[0].fieldName=orderDate&sort[0].sortDirection=Descending';
const shapes = [
  ['status=5, newest first, count', `${newest}&getTotalCount=true`],
  ['the same, skip = 90 % of matches', `${newest}&skip=DEEP`],
  ['sorted by customerName', 'sort[0].fieldName=customerName'],
  ['salesOrderNumber SW + count', 'salesOrderNumber=SO54&salesOrderNumber.operator=SW&getTotalCount=true'],
  ['one month, totalDue desc', 'orderDate=2024-03-01&orderDate=2024-03-31T23:59:59Z&sort[0].fieldName=totalDue&sort[0].sortDirection=Descending'],
];

// Growing blocks the server's event loop (SQLite is synchronous): the client's kept-alive socket may be gone after it.
const call = (path) => server.call(path).catch(() => server.call(path));

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

const server = await startTestServer({ logLevel: 'error' });
try {
  console.log(`restlayer lists on ${testProvider}, ${runs} requests per shape (take=50), HTTP time in ms`);
  for (const size of sizes) {
    const started = performance.now();
    const orders = await growOrders(server.services.storage, size);
    const grew = ((performance.now() - started) / 1000).toFixed(1);
    const matches = (await call('/sales-order?status=5&take=0&getTotalCount=true')).body.totalCount;
    console.log(`\n${orders.toLocaleString('en')} orders (grown and analyzed in ${grew} s)`);
    for (const [name, query] of shapes) {
      const path = `/sales-order?take=50&${query.replace('DEEP', String(Math.floor(matches * 0.9)))}`;
      const times = [];
      for (let i = 0; i < runs + 2; i++) {
        const t = performance.now();
        const reply = await call(path);
        if (reply.status !== 200) throw new Error(`${path}: ${reply.status} ${reply.text}`);
        if (i >= 2) times.push(performance.now() - t);
      }
      times.sort((a, b) => a - b);
      console.log(`  ${name.padEnd(36)} median ${percentile(times, 0.5).toFixed(1).padStart(7)}   p95 ${percentile(times, 0.95).toFixed(1).padStart(7)}`);
    }
  }
} finally {
  await server.stop();
  if (testProvider === 'postgres') await dropTestDatabases();
}
