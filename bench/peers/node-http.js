// Raw node:http: the ceiling. Same route shape (/lookup-table/{type}), JSON serialised per request like the frameworks do.
import { createServer } from 'node:http';
import { announce, host, notFound, payloads, port } from './common.js';

const prefix = '/lookup-table/';

const server = createServer((req, res) => {
  const path = req.url.split('?', 1)[0];
  const table = req.method === 'GET' && path.startsWith(prefix) ? payloads.get(decodeURIComponent(path.slice(prefix.length))) : undefined;
  const body = JSON.stringify(table ?? notFound);
  res.writeHead(table ? 200 : 404, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
  res.end(body);
});
server.listen(port, host, () => announce(server.address()));
