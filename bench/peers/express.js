// Express 5 (defaults, so res.json also computes a weak ETag), optionally with express-jwt verifying an HS256 bearer token.
import express from 'express';
import { expressjwt } from 'express-jwt';
import { announce, host, jwtAudience, jwtIssuer, jwtSecretKey, notFound, payloads, port, unauthorized, withJwt } from './common.js';

const app = express();
app.disable('x-powered-by');
if (withJwt) app.use(expressjwt({ secret: jwtSecretKey, algorithms: ['HS256'], issuer: jwtIssuer, audience: jwtAudience }));
app.get('/lookup-table/:type', (req, res) => {
  const table = payloads.get(req.params.type);
  res.status(table ? 200 : 404).json(table ?? notFound);
});
app.use((err, req, res, next) => res.status(err.status ?? 500).json(unauthorized));
const server = app.listen(port, host, () => announce(server.address()));
