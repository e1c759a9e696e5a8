import { expect } from 'chai';
import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import { type LoadedRoute, createLogger, loadConfig, loadRoutes, startServer } from 'restlayer';
import { echoRoute, routeFolder } from '../support/route-fixtures.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { makeTempDir, removeTempDirs } from '../support/temp.js';
import { WHY_ONE_STORE, describeOneStore } from '../support/stores.js';

const anonymous = 'anonymous: true,';
const itemParams = 'params: model({ itemId: integer({ min: 1 }) }),';

/** A folder using every naming convention, with a few files the loader must skip. */
const conventions = () => routeFolder({
  'index.js': echoRoute('GET', 'root', anonymous),
  'items/index.js': echoRoute('GET', 'items', anonymous) +
    `export const POST = route({ summary: 'create', anonymous: true, body: model({ name: text({ min: 1 }) }),
      async handle({ body, created }) { created('/items/7'); return new Output({ created: body.name }); } });\n`,
  'items/[itemId].js': echoRoute('GET', 'item', `${anonymous} ${itemParams}`),
  'items/new.js': echoRoute('GET', 'items-new', anonymous),
  'items/[itemId]/parts.js': echoRoute('GET', 'item-parts', `${anonymous} ${itemParams}`),
  'open.js': echoRoute('GET', 'open', anonymous),
  // Plain JavaScript is not held to the Promise return type.
  'sync.js': "export const GET = route({ summary: 'sync', anonymous: true, handle: () => new Output({ sync: true }) });\n",
  'secured.js': echoRoute('GET', 'secured', 'authenticated: true,') +
    `export const POST = route({ summary: 'secured post', authenticated: true, body: model({ name: text() }), handle: async ({ body }) => new Output({ posted: body.name }) });\n`,
  'admin.js': echoRoute('GET', 'admin', "permission: 'admin.read',"),
  '_helpers.js': "export const notAVerb = 'helpers are skipped';\n",
  '_private/hidden.js': echoRoute('GET', 'hidden', anonymous),
  'README.md': '# not a route\n',
});

const describeRoutes = (routes: LoadedRoute[]) => routes.map((r) => `${r.verb} ${r.path} ${r.file}`);

/** The error a routes folder stops startup with. */
async function startupError(files: Record<string, string>): Promise<Error> {
  const dir = routeFolder(files);
  try {
    await loadRoutes(dir);
  } catch (err) {
    return err as Error;
  }
  return expect.fail('loadRoutes accepted the folder') as never;
}

describeOneStore('file-system route loader', WHY_ONE_STORE.platform, () => {
  after(removeTempDirs);

  describe('conventions', () => {
    let server: TestServer;
    let dir: string;
    before(async () => {
      dir = conventions();
      server = await startTestServer({ routesDir: dir, sampleData: false });
    });
    after(() => server?.stop());

    it('maps files to paths and verbs, statics before parameters, skipping _ files and folders and non-route files', async () => {
      const routes = describeRoutes(await loadRoutes(dir));
      expect([...routes].sort()).to.deep.equal([
        'GET / index.js',
        'GET /admin admin.js',
        'GET /items items/index.js',
        'GET /items/:itemId items/[itemId].js',
        'GET /items/:itemId/parts items/[itemId]/parts.js',
        'GET /items/new items/new.js',
        'GET /open open.js',
        'GET /secured secured.js',
        'GET /sync sync.js',
        'POST /items items/index.js',
        'POST /secured secured.js',
      ].map((line) => line.replace(/ (\S+)$/, (_, f: string) => ` ${f.split('/').join(sep)}`)));
      expect(routes.findIndex((r) => r.startsWith('GET /items/new '))).to.be.below(routes.findIndex((r) => r.startsWith('GET /items/:itemId ')));
    });

    it('a handler that answers its Output without a promise is served like any other', async () => {
      const reply = await server.call('/sync', { token: null });
      expect([reply.status, reply.body.result]).to.deep.equal([200, { sync: true }]);
    });

    it('index.js serves its folder, and the root folder at /', async () => {
      const items = await server.call('/items', { token: null });
      expect(items.status).to.equal(200);
      expect(items.body.result.where).to.equal('items');
      const root = await server.call('/', { token: null });
      expect(root.status).to.equal(200);
      expect(root.body.result.where).to.equal('root');
    });

    it('[param].js maps to :param, validated by its params schema', async () => {
      const item = await server.call('/items/42', { token: null });
      expect(item.status).to.equal(200);
      expect(item.body.result).to.deep.equal({ where: 'item', params: { itemId: 42 }, user: 'anonymous' });
      const parts = await server.call('/items/43/parts', { token: null });
      expect(parts.status).to.equal(200);
      expect(parts.body.result).to.deep.equal({ where: 'item-parts', params: { itemId: 43 }, user: 'anonymous' });
      const bad = await server.call('/items/forty-two', { token: null });
      expect(bad.status).to.equal(400);
      expect(bad.body.messages.map((m) => m.property)).to.deep.equal(['itemId']);
    });

    it('a static path wins over a parameter at the same place', async () => {
      const reply = await server.call('/items/new', { token: null });
      expect(reply.status).to.equal(200);
      expect(reply.body.result.where).to.equal('items-new');
    });

    it('a POST with a body schema creates with 201 and Location', async () => {
      const reply = await server.call('/items', { method: 'POST', body: { name: 'bolt' }, token: null });
      expect(reply.status).to.equal(201);
      expect(reply.headers.get('location')).to.equal('/items/7');
      expect(reply.body.result).to.deep.equal({ created: 'bolt' });
    });

    it('skipped files serve nothing, and a verb a file does not export answers 405 with Allow', async () => {
      for (const path of ['/_helpers', '/_private/hidden', '/hidden', '/README.md', '/items/1/parts/2']) {
        const reply = await server.call(path, { token: null });
        expect(reply.status, path).to.equal(404);
        expect(reply.body.messages.map((m) => m.code), path).to.deep.equal(['Route_NotFound']);
      }
      const wrongVerb = await server.call('/items', { method: 'DELETE', token: null });
      expect(wrongVerb.status).to.equal(405);
      expect(wrongVerb.headers.get('allow')?.split(/,\s*/).sort()).to.include.members(['GET', 'POST']);
    });

    it('a route without anonymous: true refuses a caller without a token: 401 Security_Unauthenticated, WWW-Authenticate: Bearer', async () => {
      for (const [method, body] of [['GET', undefined], ['POST', { name: 'x' }]] as const) {
        const reply = await server.call('/secured', { method, body, token: null });
        expect(reply.status, method).to.equal(401);
        expect(reply.body.messages.map((m) => m.code)).to.deep.equal(['Security_Unauthenticated']);
        expect(reply.body.result).to.equal(undefined);
        expect(reply.headers.get('www-authenticate')).to.match(/^Bearer\b/);
      }
      const ok = await server.call('/secured');
      expect(ok.status).to.equal(200);
      expect(ok.body.result).to.deep.equal({ where: 'secured', params: {}, user: 'tester' });
    });

    it('an anonymous route answers without a token', async () => {
      const reply = await server.call('/open', { token: null });
      expect(reply.status).to.equal(200);
      expect(reply.body).to.deep.equal({ result: { where: 'open', params: {}, user: 'anonymous' }, messages: [] });
    });

    it('a route naming a permission needs a role granting it: 403 Security_Forbidden otherwise', async () => {
      const user = await server.call('/admin', { token: server.token({ role: ['Clerk'] }) });
      expect(user.status).to.equal(403);
      expect(user.body.messages.map((m) => m.code)).to.deep.equal(['Security_Forbidden']);
      const admin = await server.call('/admin', { token: server.token({ role: ['Clerk', 'Administrator'] }) });
      expect(admin.status).to.equal(200);
      expect(admin.body.result.where).to.equal('admin');
      const none = await server.call('/admin', { token: null });
      expect(none.status).to.equal(401);
    });
  });

  describe('broken route files stop startup with an error naming the file', () => {
    const valid = { 'ok.js': echoRoute('GET', 'ok', anonymous) };

    it('an export that is not a verb', async () => {
      const err = await startupError({ ...valid, 'things/bad.js': echoRoute('get', 'lower-case verb', anonymous) });
      expect(err.message).to.include(join('things', 'bad.js')).and.include('"get"');
    });

    it('a default export', async () => {
      const err = await startupError({ ...valid, 'bad.js': `export default route({ summary: 'x', anonymous: true, handle: async () => new Output(1) });\n` });
      expect(err.message).to.include('bad.js').and.include('default');
    });

    it('a helper exported next to the verbs', async () => {
      const err = await startupError({ ...valid, 'mixed.js': `${echoRoute('GET', 'mixed', anonymous)}export const helper = () => 1;\n` });
      expect(err.message).to.include('mixed.js').and.include('helper');
    });

    it('a verb that is not made with route()', async () => {
      const err = await startupError({ ...valid, 'plain.js': "export const GET = { summary: 'plain', anonymous: true, handle: async () => new Output(1) };\n" });
      expect(err.message).to.include('plain.js').and.include('route(');
    });

    it('a file exporting nothing', async () => {
      const err = await startupError({ ...valid, 'empty.js': 'const nothing = 1;\n' });
      expect(err.message).to.include('empty.js');
    });

    it('a POST, PUT or PATCH without a body schema', async () => {
      for (const verb of ['POST', 'PUT', 'PATCH']) {
        const err = await startupError({ ...valid, 'nobody.js': echoRoute(verb, 'no body', anonymous) });
        expect(err.message, verb).to.include('nobody.js').and.include(verb).and.include('body');
      }
    });

    it('a GET or DELETE with a body schema', async () => {
      const err = await startupError({ ...valid, 'getbody.js': echoRoute('GET', 'get with body', `${anonymous} body: model({ a: text() }),`) });
      expect(err.message).to.include('getbody.js').and.include('body');
    });

    it('a path parameter without a params schema', async () => {
      const err = await startupError({ ...valid, 'things/[thingId].js': echoRoute('GET', 'no params', anonymous) });
      expect(err.message).to.include(join('things', '[thingId].js')).and.include(':thingId');
    });

    it('a params schema that does not match the path parameters', async () => {
      const err = await startupError({ ...valid, 'things/[thingId].js': echoRoute('GET', 'wrong params', `${anonymous} params: model({ id: integer() }),`) });
      expect(err.message).to.include(join('things', '[thingId].js')).and.include('thingId');
    });

    it('anonymous set to anything but true', async () => {
      const err = await startupError({ ...valid, 'anon.js': echoRoute('GET', 'anon false', 'anonymous: false,') });
      expect(err.message).to.include('anon.js').and.include('anonymous');
    });

    it('a file or folder name that is not a valid path segment', async () => {
      const upper = await startupError({ ...valid, 'Things.js': echoRoute('GET', 'upper', anonymous) });
      expect(upper.message).to.include('Things.js');
      const folder = await startupError({ ...valid, 'My Folder/x.js': echoRoute('GET', 'space', anonymous) });
      expect(folder.message).to.include(join('My Folder', 'x.js'));
    });

    it('a file that does not parse', async () => {
      const err = await startupError({ ...valid, 'broken.js': 'export const GET = route({ summary: \n' });
      expect(err.message).to.include('broken.js');
    });

    it('a file that throws while it is imported', async () => {
      const err = await startupError({ ...valid, 'throws.js': "throw new Error('boom at import');\n" });
      expect(err.message).to.include('throws.js').and.include('boom at import');
    });

    it('two files serving the same verb and path, naming both', async () => {
      const same = await startupError({ 'dup.js': echoRoute('GET', 'file', anonymous), 'dup/index.js': echoRoute('GET', 'index', anonymous) });
      expect(same.message).to.include('dup.js').and.include(join('dup', 'index.js'));
      const params = await startupError({
        'x/[a].js': echoRoute('GET', 'a', `${anonymous} params: model({ a: integer() }),`),
        'x/[b].js': echoRoute('GET', 'b', `${anonymous} params: model({ b: integer() }),`),
      });
      expect(params.message).to.include(join('x', '[a].js')).and.include(join('x', '[b].js'));
    });

    it('startServer stops before opening the database', async () => {
      const db = join(makeTempDir(), 'never.db');
      const { config } = loadConfig({ env: { NODE_ENV: 'test', Storage__Sqlite__Path: db } });
      const dir = routeFolder({ ...valid, 'things/[thingId].js': echoRoute('GET', 'no params', anonymous) });
      let failure: Error | undefined;
      try {
        const running = await startServer({ config, log: createLogger('error', () => {}), port: 0, host: '127.0.0.1', application: { modules: [], routesDir: dir } });
        await running.close();
      } catch (err) {
        failure = err as Error;
      }
      expect(failure?.message).to.include(join('things', '[thingId].js'));
      expect(existsSync(db)).to.equal(false);
    });
  });
});
