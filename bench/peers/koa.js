// Bare Koa 3 + @koa/router (the baseline), optionally with koa-jwt verifying an HS256 bearer token.
import Router from '@koa/router';
import Koa from 'koa';
import koaJwt from 'koa-jwt';
import { announce, host, jwtAudience, jwtIssuer, jwtSecretKey, notFound, payloads, port, withJwt } from './common.js';

const app = new Koa();
app.silent = true;
const router = new Router();
if (withJwt) router.use(koaJwt({ secret: jwtSecretKey, algorithms: ['HS256'], issuer: jwtIssuer, audience: jwtAudience }));
router.get('/lookup-table/:type', (ctx) => {
  const table = payloads.get(ctx.params.type);
  ctx.status = table ? 200 : 404;
  ctx.body = table ?? notFound;
});
app.use(router.routes());
app.use(router.allowedMethods());
const server = app.listen(port, host, () => announce(server.address()));
