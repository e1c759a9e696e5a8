// Fastify 5 (no response schema, so JSON.stringify like the others), optionally with @fastify/jwt verifying an HS256
// bearer token in an onRequest hook; its request log on when LOG_FILE is set.
import Fastify from 'fastify';
import { announce, host, notFound, payloads, port, withJwt } from './common.js';
import { verifyBearerTokens } from './fastify-jwt-hook.js';

// Its pino logger on, as Fastify runs in production: a line when a request comes in and one when it is answered,
// written to LOG_FILE (restlayer's log goes to a file as well).
const app = Fastify({ logger: process.env.LOG_FILE ? { level: 'info', file: process.env.LOG_FILE } : false });
if (withJwt) await verifyBearerTokens(app);
app.get('/lookup-table/:type', async (request, reply) => {
  const table = payloads.get(request.params.type);
  reply.code(table ? 200 : 404).header('content-type', 'application/json; charset=utf-8');
  return table ?? notFound;
});
await app.listen({ port, host });
announce(app.server.address());
