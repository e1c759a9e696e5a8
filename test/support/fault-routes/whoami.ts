import { Output, model, route, text } from 'restlayer';

/**
 * Test-only (served by fault-cli.ts): `GET /whoami` answers the pid of the process that serves it, so a fault test can
 * tell which worker of `serve --workers N` is behind a kept-alive connection.
 */
export const GET = route({
  summary: 'The pid of the serving process (fault tests).',
  anonymous: true,
  result: model({ pid: text() }),
  handle: async () => Output.of({ pid: String(process.pid) }),
});
