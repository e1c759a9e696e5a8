// @fastify/jwt verifying the HS256 bearer token (issuer and audience checked) in an onRequest hook, as its README
// shows: shared by the Fastify peers.
import fastifyJwt from '@fastify/jwt';
import { jwtAudience, jwtIssuer, jwtKey, unauthorized } from './common.js';

export async function verifyBearerTokens(app) {
  await app.register(fastifyJwt, { secret: jwtKey, verify: { algorithms: ['HS256'], allowedIss: jwtIssuer, allowedAud: jwtAudience } });
  app.addHook('onRequest', async (request, reply) => {
    try {
      await request.jwtVerify();
    } catch {
      return reply.code(401).send(unauthorized);
    }
  });
}
