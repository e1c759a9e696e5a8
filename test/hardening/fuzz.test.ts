import { expect } from 'chai';
import fc from 'fast-check';
import jwt from 'jsonwebtoken';
import { type LoadedRoute, applicationRoutes, isAnonymous } from 'restlayer';
import { application } from '../../services/index.js';
import { handMadeToken, newKey, tamperSignature } from '../support/tokens.js';
import { type TestServer, startTestServer } from '../support/server.js';
import { testProvider } from '../support/test-stores.js';
import { FAST_HASH, addUser } from '../support/users.js';
import {
  type RawReply, type RawRequest, SQL_METACHARACTERS, contentType, expectEnvelope, expectNoPollution, expectSaneAnswer, hostileBody, nearlyValidJson,
  hostileString, operatorName, parseRaw, pollutingJson, prototypeSnapshot, salesOrderChecksum, salesOrderFingerprint, send, sendRaw, urlPart,
} from './hostile.js';
import { salesDb } from '../support/sales-db.js';
import { describeStores } from '../support/stores.js';

/**
 * Property-based hostile requests at every route the server loads (new route files are covered without touching
 * this file). Every answer must be 2xx or 4xx, the envelope, free of stack traces and paths, with an X-Request-Id;
 * callers without valid credentials change nothing; no request plants anything on a built-in prototype.
 *
 * Seeds are fixed (FUZZ_SEED overrides the base, FUZZ_RUNS scales the run counts); a failure prints the seed and
 * the path fast-check needs to replay it, plus the shrunk request.
 */
const BASE_SEED = Number(process.env.FUZZ_SEED ?? 20_240_611);
const SCALE = Number(process.env.FUZZ_RUNS ?? 1);
const runs = (n: number) => Math.max(1, Math.round(n * SCALE));
let generated = 0;
/** Answers by status class, for the summary line. */
const tally: Record<string, number> = {};
const count = (status: number) => (tally[`${Math.floor(status / 100)}xx`] = (tally[`${Math.floor(status / 100)}xx`] ?? 0) + 1);
async function sendCounted(port: number, req: RawRequest): Promise<RawReply> {
  const reply = await send(port, req);
  count(reply.status);
  return reply;
}

const B_SECRET = 'variant-b-fuzz-secret-that-is-long-enough-0123456789';
const FUZZ_USER = { userName: 'fuzzer', password: 'fuzzer-password-42' };

/** Runs a property with a fixed seed; on failure the message names the seed and how to rerun. */
async function check<T>(name: string, offset: number, arbitrary: fc.Arbitrary<T>, predicate: (value: T) => Promise<void>, numRuns: number) {
  // Routes print as "VERB /path", not as their schemas.
  const show = (value: unknown) => JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && 'verb' in v && 'path' in v && 'route' in v ? `${String(v.verb)} ${String(v.path)}` : Buffer.isBuffer(v) ? `<bytes ${v.toString('hex')}>` : v);
  const seed = BASE_SEED + offset;
  const result = await fc.check(fc.asyncProperty(arbitrary, async (value) => {
    generated++;
    await predicate(value);
  }), { seed, numRuns, endOnFailure: false });
  if (result.failed) {
    throw new Error(`${name}: failed with seed ${seed} (rerun: FUZZ_SEED=${BASE_SEED} and this offset ${offset}; fast-check path "${result.counterexamplePath}")\n` +
      `counterexample: ${show(result.counterexample).slice(0, 2000)}\n${String((result.errorInstance as Error | undefined)?.message ?? result.errorInstance)}`);
  }
}

interface Target {
  server: TestServer;
  /** Authorization header values that carry no valid credentials. */
  anonymous: (string | undefined)[];
  /** Authorization header values of valid callers (User, Administrator, odd but signed claims). */
  valid: string[];
}

const verbs = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND'];
const bodyVerbs = new Set(['POST', 'PUT', 'PATCH']);
const mutations = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const lookupNames = ['sales-order-status', 'SALES-TERRITORY', 'sales-person', 'operators', 'Operators', 'unknown-table'];
const criteriaKeys = ['salesOrderNumber', 'status', 'orderDate', 'dueDate', 'totalDue', 'customerName', 'territoryId', 'salesPersonId', 'onlineOrderFlag'];

/** A value for a path parameter: an id, a lookup table name, hostile text, or (rarely) more than the head limit. */
const paramValue = fc.oneof(
  { weight: 6, arbitrary: urlPart },
  { weight: 2, arbitrary: fc.constantFrom(...lookupNames) },
  { weight: 2, arbitrary: fc.integer({ min: 43659, max: 55658 }).map(String) },
  { weight: 1, arbitrary: fc.constantFrom('a'.repeat(300), '9'.repeat(400), 'b'.repeat(20_000)) },
);

/** One query-string pair, as sent (already encoded, or deliberately broken). */
const queryPair = fc.tuple(
  fc.oneof(
    fc.constantFrom(...criteriaKeys).chain((k) => fc.constantFrom(k, k.toUpperCase(), `${k}.operator`, `${k}.OPERATOR`, `${k}.`, `${k}[0]`)),
    fc.constantFrom('skip', 'take', 'getTotalCount', 'TAKE', 'sort[0].fieldName', 'sort[0].sortDirection', 'sort[1].fieldName', 'sort[99].fieldName', 'sort[100].fieldName', 'sort[-1].fieldName', 'sort[0].FIELDNAME'),
    fc.constantFrom('__proto__', '__proto__[polluted]', 'constructor', 'constructor[prototype][polluted]', 'constructor.prototype.polluted', 'prototype', 'polluted', 'toString', 'hasOwnProperty.operator', ''),
    urlPart,
  ),
  fc.oneof(urlPart, operatorName.map((o) => encodeURIComponent(o.replace(/[\ud800-\udfff]/g, '?'))), fc.constantFrom(...criteriaKeys, 'Descending', 'descending', 'Ascending', 'sideways', '0', '1000', '1001', '100000000', '-1', 'true', 'FALSE')),
  fc.constantFrom('=', '=', '=', '', '=='),
).map(([k, v, eq]) => (eq ? `${k}${eq}${v}` : k));

const queryString = fc.oneof(
  { weight: 1, arbitrary: fc.constant('') },
  { weight: 5, arbitrary: fc.array(queryPair, { maxLength: 8 }).map((pairs) => (pairs.length ? '?' + pairs.join('&') : '')) },
  { weight: 1, arbitrary: fc.constantFrom('?', '??', '?&&', '?=', '?%', '?a=1&a=2&a=3', '?take=1&take=2', `?customerName=${'x'.repeat(9000)}`) },
);

const optionalHeader = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined, freq: 3 });

interface Plan {
  route: LoadedRoute;
  method: string;
  params: string[];
  query: string;
  body?: string | Buffer;
  contentType?: string;
  authorization?: string;
  cookie?: string;
  requestId?: string;
  ifNoneMatch?: string;
  origin?: string;
  encoding?: string;
}

function planArbitrary(routes: LoadedRoute[], credentials: fc.Arbitrary<string | undefined>, body: fc.Arbitrary<string | Buffer> = hostileBody): fc.Arbitrary<Plan> {
  return fc.constantFrom(...routes).chain((route) => fc.record({
    route: fc.constant(route),
    method: fc.oneof({ weight: 5, arbitrary: fc.constant(route.verb) }, { weight: 1, arbitrary: fc.constantFrom(...verbs) }),
    params: fc.array(paramValue, { minLength: (route.path.match(/:/g) ?? []).length, maxLength: (route.path.match(/:/g) ?? []).length }),
    query: queryString,
    body: optionalHeader(body).map((b) => b),
    contentType,
    authorization: credentials,
    cookie: optionalHeader(fc.constantFrom('restlayer.sid=abc; restlayer.sid.sig=def', 'restlayer.sid=%E0%A4%A', 'restlayer.sid=' + 'c'.repeat(3000), '__proto__=1; constructor=2', '=; ;=;', 'restlayer.sid.sig=x')),
    requestId: optionalHeader(fc.oneof(fc.constantFrom('fuzz-1', 'x'.repeat(129), 'bad id with spaces', '<script>', '../etc'), fc.string({ maxLength: 20 }).map((s) => s.replace(/[^\x21-\x7e]/g, '')))),
    ifNoneMatch: optionalHeader(fc.constantFrom('*', 'W/"x"', '"abc", W/"def"', 'garbage', ',,,')),
    origin: optionalHeader(fc.constantFrom('https://evil.example', 'null', 'http://127.0.0.1', '%%%')),
    encoding: fc.option(fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'compress', 'x-unknown'), { nil: undefined, freq: 12 }),
  }, { requiredKeys: ['route', 'method', 'params', 'query'] }));
}

function toRequest(plan: Plan): RawRequest {
  let i = 0;
  const path = plan.route.path.replace(/:[\w$]+/g, () => plan.params[i++] ?? '1') + plan.query;
  const headers: Record<string, string> = {};
  const withBody = plan.body !== undefined && (bodyVerbs.has(plan.method) || plan.method === 'DELETE');
  if (withBody && plan.contentType !== undefined) headers['Content-Type'] = plan.contentType;
  if (plan.authorization !== undefined) headers.Authorization = plan.authorization;
  if (plan.cookie !== undefined) headers.Cookie = plan.cookie;
  if (plan.requestId !== undefined) headers['X-Request-Id'] = plan.requestId;
  if (plan.ifNoneMatch !== undefined) headers['If-None-Match'] = plan.ifNoneMatch;
  if (plan.origin !== undefined) headers.Origin = plan.origin;
  if (withBody && plan.encoding !== undefined) headers['Content-Encoding'] = plan.encoding;
  return { method: plan.method, path, headers, body: withBody ? plan.body : undefined, conditional: plan.ifNoneMatch !== undefined };
}

function describePlan(req: RawRequest, reply: RawReply) {
  const body = req.body === undefined ? '' : ` body=${JSON.stringify(String(req.body).slice(0, 200))}`;
  return `${req.method} ${req.path.slice(0, 200)} ${JSON.stringify(req.headers)}${body} → ${reply.status} ${reply.text.slice(0, 300)}`;
}

describeStores('hardening: hostile requests at every route (property-based)', function () {
  this.timeout(180_000);
  let routes: LoadedRoute[];
  let a: Target;
  let b: Target;
  let before0: Record<string, string[]>;

  before(async () => {
    before0 = prototypeSnapshot();
    routes = await applicationRoutes(application);
    const serverA = await startTestServer({ config: { ...FAST_HASH }, logLevel: 'error' });
    const serverB = await startTestServer({ config: { Authentication: { Variant: 'B', PasswordHashCost: 10 } }, env: { AuthConfig__SigningKey: B_SECRET }, logLevel: 'error' });
    await addUser(serverA, FUZZ_USER.userName, FUZZ_USER.password, ['Clerk']);
    await addUser(serverB, FUZZ_USER.userName, FUZZ_USER.password, ['Clerk']);
    const foreignKey = Buffer.from(newKey(), 'base64');
    const signB = (claims: object, options: jwt.SignOptions = {}) =>
      jwt.sign({ sub: 'tester', role: ['Clerk'], ...claims }, Buffer.from(B_SECRET, 'utf8'), { algorithm: 'HS256', issuer: 'restlayer', audience: 'restlayer', expiresIn: 600, ...options });
    const anonymousFor = (valid: string): (string | undefined)[] => [
      undefined, '', 'Bearer', 'Bearer ', 'Bearer garbage', 'Bearer a.b.c', `Bearer ${tamperSignature(valid)}`, `Bearer ${valid}x`,
      `Bearer ${handMadeToken({ alg: 'none', typ: 'JWT' }, { sub: 'admin', role: ['Administrator'], exp: 9_999_999_999 })}`,
      `Bearer ${jwt.sign({ sub: 'tester', role: ['Administrator'] }, foreignKey, { algorithm: 'HS256', expiresIn: 600 })}`,
      'Basic dXNlcjpwYXNz', 'Digest username="x"', `Bearer ${'e'.repeat(5000)}`, `bearer  ${valid.split('.').slice(0, 2).join('.')}`,
    ];
    const tokenA = serverA.token();
    a = {
      server: serverA,
      anonymous: [...anonymousFor(tokenA), `Bearer ${serverA.token({}, { expiresIn: -60 })}`, `Bearer ${serverA.token({ sub: 42 })}`],
      valid: [
        `Bearer ${tokenA}`, `Bearer ${serverA.token({ role: ['Administrator', 'Clerk'] })}`, `bearer ${tokenA}`,
        `Bearer ${serverA.token({ sub: '__proto__', name: { toString: 1 }, role: { polluted: true }, roles: [['Administrator']] })}`,
        `Bearer ${serverA.token({ sub: 'constructor', role: ['Administrator'], sid: 'no-such-session' })}`,
      ],
    };
    const tokenB = signB({});
    b = {
      server: serverB,
      anonymous: [...anonymousFor(tokenB), `Bearer ${signB({}, { expiresIn: -60 })}`, `Bearer ${tokenA}`],
      valid: [`Bearer ${tokenB}`, `Bearer ${signB({ role: ['Administrator'] })}`],
    };
  });
  after(async () => {
    await a?.server.stop();
    await b?.server.stop();
    console.log(`      (${generated} generated cases in this file; answers ${JSON.stringify(tally)})`);
  });

  const targetOf = (route: LoadedRoute) => (route.route.variant === 'B' ? b : a);
  /** Nothing any property sent was a defect the server had to log. */
  afterEach(() => {
    for (const t of [a, b]) expect(t.server.logs.filter((l) => l.level === 'error'), 'unhandled exceptions were logged').to.deep.equal([]);
  });

  it('loads every route file, both variants', () => {
    const seen = routes.map((r) => `${r.verb} ${r.path}`);
    expect(seen).to.include.members(['GET /sales-order', 'POST /sales-order', 'PUT /sales-order/:_salesOrderId', 'GET /lookup-table/:type', 'POST /authentication', 'POST /auth/jwt']);
  });

  it('without valid credentials: every answer is a sane 2xx/4xx envelope, secured routes never answer 2xx, nothing changes, nothing is polluted', async () => {
    const before = { a: await salesOrderChecksum(a.server.infrastructure.storage), b: await salesOrderChecksum(b.server.infrastructure.storage) };
    const credentials = (t: Target) => fc.constantFrom(...t.anonymous);
    const plans = fc.constantFrom(...routes).chain((route) => planArbitrary([route], credentials(targetOf(route))));
    await check('anonymous', 1, plans, async (plan) => {
      const req = toRequest(plan);
      const reply = await sendCounted(targetOf(plan.route).server.port, req);
      expectSaneAnswer(req, reply);
      const runsRoute = plan.method === plan.route.verb || (plan.method === 'HEAD' && plan.route.verb === 'GET');
      if (!isAnonymous(plan.route.route, targetOf(plan.route).server.config.RestAPI.PublicDocs) && runsRoute && plan.cookie === undefined) {
        expect(reply.status, `a secured route answered without credentials: ${describePlan(req, reply)}`).to.be.within(400, 499);
      }
      expectNoPollution(before0, describePlan(req, reply));
    }, runs(500));
    expect(await salesOrderChecksum(a.server.infrastructure.storage)).to.equal(before.a);
    expect(await salesOrderChecksum(b.server.infrastructure.storage)).to.equal(before.b);
  });

  it('with valid credentials: every answer is a sane 2xx/4xx envelope, a refused mutation writes nothing, nothing is polluted', async () => {
    const before = { a: await salesOrderChecksum(a.server.infrastructure.storage), b: await salesOrderChecksum(b.server.infrastructure.storage) };
    let mutated = false;
    const plans = fc.constantFrom(...routes).chain((route) => planArbitrary([route], fc.constantFrom(...targetOf(route).valid)));
    await check('authenticated', 2, plans, async (plan) => {
      const target = targetOf(plan.route);
      const req = toRequest(plan);
      const mutation = mutations.has(plan.method);
      const fingerprint = mutation ? await salesOrderFingerprint(target.server.infrastructure.storage) : '';
      const reply = await sendCounted(target.server.port, req);
      expectSaneAnswer(req, reply);
      if (mutation) {
        if (reply.status >= 200 && reply.status < 300) mutated = true;
        else expect(await salesOrderFingerprint(target.server.infrastructure.storage), `a refused mutation changed sales_order: ${describePlan(req, reply)}`).to.equal(fingerprint);
      }
      expectNoPollution(before0, describePlan(req, reply));
    }, runs(600));
    if (!mutated) {
      expect(await salesOrderChecksum(a.server.infrastructure.storage)).to.equal(before.a);
      expect(await salesOrderChecksum(b.server.infrastructure.storage)).to.equal(before.b);
    }
  });

  it('nearly valid requests (real ids, criteria and fields, one part hostile) reach the services: sane answers, refused mutations write nothing', async () => {
    const validCriteria = fc.array(fc.constantFrom('status=1', 'status=5&status=6', 'orderDate=2024-01-01&orderDate=2024-03-31', 'customerName.operator=CN&customerName=an',
      'totalDue.operator=GT&totalDue=500', 'sort[0].fieldName=orderDate&sort[0].sortDirection=Descending', 'take=3', 'skip=10', 'getTotalCount=true', 'onlineOrderFlag=TRUE'), { maxLength: 3 });
    const plans = fc.constantFrom(...routes).chain((route) => fc.record({
      route: fc.constant(route),
      id: fc.oneof(fc.integer({ min: 43659, max: 55658 }).map(String), fc.constantFrom(...lookupNames), paramValue),
      query: route.route.query ? fc.oneof(validCriteria.map((c) => (c.length ? `?${c.join('&')}` : '')), queryString) : fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: queryString }),
      body: fc.oneof({ weight: 3, arbitrary: nearlyValidJson }, { weight: 1, arbitrary: hostileBody }),
      admin: fc.boolean(),
    }));
    let mutated = false;
    await check('nearly valid', 8, plans, async ({ route, id, query, body, admin }) => {
      const t = targetOf(route);
      const req: RawRequest = {
        method: route.verb,
        path: route.path.replace(/:[\w$]+/g, id) + query,
        headers: { Authorization: t.valid[admin ? 1 : 0], ...(route.route.body ? { 'Content-Type': 'application/json' } : {}) },
        body: route.route.body ? body : undefined,
      };
      const mutation = mutations.has(route.verb);
      const fingerprint = mutation ? await salesOrderFingerprint(t.server.infrastructure.storage) : '';
      const reply = await sendCounted(t.server.port, req);
      expectSaneAnswer(req, reply);
      if (mutation && (reply.status < 200 || reply.status >= 300)) {
        expect(await salesOrderFingerprint(t.server.infrastructure.storage), `a refused mutation changed sales_order: ${describePlan(req, reply)}`).to.equal(fingerprint);
      } else if (mutation) mutated = true;
      expectNoPollution(before0, describePlan(req, reply));
    }, runs(600));
    expect(mutated, 'no generated mutation succeeded: the generator does not reach the services').to.equal(true);
  });

  it('JSON bodies (deep, polluting, huge numbers, wrong types, invalid UTF-8, odd content types) at every route that takes one', async () => {
    const bodyRoutes = routes.filter((r) => r.route.body);
    expect(bodyRoutes.length).to.be.at.least(5);
    const body = fc.oneof(hostileBody, pollutingJson, fc.constant(JSON.stringify(FUZZ_USER)));
    const plans = fc.constantFrom(...bodyRoutes).chain((route) => {
      const t = targetOf(route);
      return planArbitrary([route], fc.constantFrom(...t.valid, ...t.anonymous.slice(0, 3)), body)
        .map((p) => ({ ...p, method: route.verb, body: p.body ?? '{}', encoding: undefined }));
    });
    await check('bodies', 3, plans, async (plan) => {
      const req = toRequest(plan);
      const reply = await sendCounted(targetOf(plan.route).server.port, req);
      expectSaneAnswer(req, reply);
      expectNoPollution(before0, describePlan(req, reply));
    }, runs(500));
  });

  it('input edge cases (dates near 0001 and 9999 with offsets, lone surrogates, names given twice, reserved names): an oracle of the contract', async () => {
    const server = a.server;
    const DAY = 86_400_000;
    const MIN = -62_135_596_800_000; // 0001-01-01T00:00:00Z
    const MAX = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z
    const two = (n: number) => String(n).padStart(2, '0');
    /** An ISO date text and the instant it names, computed from its parts (not by the server's parser). */
    const isoDate = fc.record({
      year: fc.oneof({ weight: 2, arbitrary: fc.constantFrom(1, 9999) }, { weight: 3, arbitrary: fc.integer({ min: 2100, max: 9998 }) }),
      month: fc.integer({ min: 1, max: 12 }),
      day: fc.integer({ min: 1, max: 28 }),
      hour: fc.integer({ min: 0, max: 23 }),
      minute: fc.integer({ min: 0, max: 59 }),
      offset: fc.oneof(fc.constant(0), fc.integer({ min: -14 * 60, max: 14 * 60 })),
      edge: fc.boolean(),
    }).map(({ year, month, day, hour, minute, offset, edge }) => {
      // At the edges, the first or last day of the range, whose offset decides.
      if (edge) [month, day, hour] = year === 1 ? [1, 1, 0] : [12, 31, 23];
      const t = new Date(0);
      t.setUTCFullYear(year, month - 1, day);
      t.setUTCHours(hour, minute, 0, 0);
      const zone = offset === 0 ? 'Z' : `${offset < 0 ? '-' : '+'}${two(Math.floor(Math.abs(offset) / 60))}:${two(Math.abs(offset) % 60)}`;
      return { text: `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}T${two(hour)}:${two(minute)}:00${zone}`, instant: t.getTime() - offset * 60_000 };
    });
    /** Text of code units that may pair up as surrogates, or not, and may hold NUL. */
    const unitText = fc.array(fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0xd800, max: 0xdfff }), fc.integer({ min: 0xa0, max: 0xd7ff }), fc.constant(0)), { maxLength: 12 })
      .map((units) => String.fromCharCode(...units));
    const wellFormed = (text: string) => {
      for (let i = 0; i < text.length; i++) {
        const unit = text.charCodeAt(i);
        if (unit >= 0xdc00 && unit <= 0xdfff) return false;
        if (unit >= 0xd800 && unit <= 0xdbff) {
          const next = text.charCodeAt(i + 1);
          if (!(next >= 0xdc00 && next <= 0xdfff)) return false;
          i++;
        }
      }
      return true;
    };
    const spell = (name: string) => fc.constantFrom(name, name.toUpperCase(), name[0].toUpperCase() + name.slice(1));
    const sometimes = <T>(arbitrary: fc.Arbitrary<T>) => fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
    const cases = fc.record({
      comment: fc.oneof({ weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 8 }) }, { weight: 1, arbitrary: unitText }),
      dueDate: isoDate,
      spelling: fc.record({ status: spell('status'), onlineOrderFlag: spell('onlineOrderFlag'), customerId: spell('customerId'), comment: spell('comment'), dueDate: spell('dueDate') }),
      twice: sometimes(fc.tuple(fc.constantFrom('status', 'onlineOrderFlag', 'comment', 'dueDate'), fc.boolean())),
      reserved: sometimes(fc.constantFrom('__proto__', 'constructor', 'prototype', 'CONSTRUCTOR', '__PROTO__')),
    });
    const values: Record<string, (c: { comment: string; dueDate: { text: string } }) => string> = {
      status: () => '1', onlineOrderFlag: () => 'true', customerId: () => '11000', comment: (c) => JSON.stringify(c.comment), dueDate: (c) => JSON.stringify(c.dueDate.text),
    };
    let accepted = 0;
    await check('input edges', 9, cases, async (c) => {
      const entries = Object.entries(c.spelling).map(([name, key]) => `${JSON.stringify(key)}:${values[name](c)}`);
      const expected: string[] = [];
      if (c.twice) {
        const [name, exact] = c.twice;
        entries.push(`${JSON.stringify(exact ? c.spelling[name as keyof typeof c.spelling] : name.toLowerCase())}:${name === 'comment' ? '"x"' : name === 'dueDate' ? '"2200-01-01"' : values[name](c)}`);
        expected.push(`${name} Input_Duplicate`);
      }
      if (c.reserved) {
        entries.splice(2, 0, `${JSON.stringify(c.reserved)}:{"polluted":1,"status":2}`);
        expected.push(`${c.reserved} Input_ReservedName`);
      }
      if (c.twice?.[0] !== 'comment' && (!wellFormed(c.comment) || c.comment.includes('\u0000') || c.comment.includes('\u{10FFFF}'))) expected.push('comment Input_InvalidValue');
      const inRange = c.dueDate.instant >= MIN && c.dueDate.instant <= MAX;
      if (c.twice?.[0] !== 'dueDate' && !inRange) expected.push('dueDate Input_OutOfRange');
      if (!expected.length && c.dueDate.instant < Date.now() - DAY) expected.push('dueDate SalesOrder_DateBeforeOrder');

      const body = `{${entries.join(',')}}`;
      const before = await salesOrderFingerprint(server.infrastructure.storage);
      const req: RawRequest = { method: 'POST', path: '/sales-order', headers: { Authorization: a.valid[0], 'Content-Type': 'application/json' }, body };
      const reply = await sendCounted(server.port, req);
      expectSaneAnswer(req, reply);
      const answer = JSON.parse(reply.text) as { result?: { salesOrderId: number }; messages: { code: string; property?: string }[] };
      const context = `${body} → ${reply.status} ${reply.text.slice(0, 400)}`;
      expect(answer.messages.map((m) => `${m.property} ${m.code}`).sort(), context).to.deep.equal(expected.sort());
      if (expected.length) {
        expect(reply.status, context).to.equal(400);
        expect(await salesOrderFingerprint(server.infrastructure.storage), `a refused create wrote: ${context}`).to.equal(before);
      } else {
        expect(reply.status, context).to.equal(201);
        const stored = await server.call(`/sales-order/${answer.result!.salesOrderId}`);
        expect([stored.body.result.comment ?? '', stored.body.result.dueDate], context).to.deep.equal([c.comment, new Date(c.dueDate.instant).toISOString()]);
        accepted++;
      }
      expectNoPollution(before0, context);
    }, runs(200));
    expect(accepted, 'the generator never made a body the server takes').to.be.above(0);
  });

  it('prototype pollution attempts in bodies, query strings and parameters of every route leave every prototype as it was', async () => {
    const pollutingQuery = fc.constantFrom('?__proto__[polluted]=yes', '?constructor[prototype][polluted]=yes', '?__proto__.polluted=yes', '?constructor.prototype.isAdmin=true',
      '?__proto__=x&__proto__=y', '?toString=1&valueOf=2', '?sort[0].__proto__=x', '?status.__proto__=EQ', '?hasOwnProperty=1');
    const plans = fc.constantFrom(...routes).chain((route) => fc.record({
      route: fc.constant(route),
      query: pollutingQuery,
      body: pollutingJson,
      param: fc.constantFrom('__proto__', 'constructor', 'prototype', '__proto__%5Bpolluted%5D', 'hasOwnProperty'),
      admin: fc.boolean(),
    }));
    await check('pollution', 4, plans, async ({ route, query, body, param, admin }) => {
      const t = targetOf(route);
      const req: RawRequest = {
        method: route.verb,
        path: route.path.replace(/:[\w$]+/g, param) + query,
        headers: { Authorization: t.valid[admin ? 1 : 0], ...(route.route.body ? { 'Content-Type': 'application/json' } : {}) },
        body: route.route.body ? body : undefined,
      };
      const reply = await sendCounted(t.server.port, req);
      expectSaneAnswer(req, reply);
      expectNoPollution(before0, describePlan(req, reply));
    }, runs(300));
  });

  it('raw request lines and headers: broken HTTP gets the 400 envelope, never a 5xx or a silent close', async () => {
    const token = a.valid[0];
    const line = fc.record({
      method: fc.constantFrom('GET', 'POST', 'get', 'G ET', 'GET\u0000', '', 'PROPFIND', 'X'.repeat(40)),
      target: fc.oneof(urlPart.map((p) => `/sales-order/${p}`), fc.constantFrom('/', '*', 'http://x/', '/sales-order?%zz=%E0%A4%A', '/%00', '//', '/a b', '/\u0001', '/\u00ff', '/sales-order\t')),
      version: fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0', 'HTTP/2.0', 'HTTP/1.x', 'http/1.1', ''),
      headers: fc.array(fc.constantFrom(
        'X-Broken', 'Bad Header: 1', ': empty', 'X-Ctl: a\u0001b', 'X-Bytes: \u00ff\u00fe', `Authorization: ${token}`, 'Content-Length: abc',
        'Content-Length: -1', 'Transfer-Encoding: chunked', 'Transfer-Encoding: gzip, chunked', 'Content-Length: 1\r\nContent-Length: 2', 'X-Id: 1\rX: 2', ' folded: yes',
      ), { maxLength: 4 }),
    });
    await check('raw http', 5, line, async ({ method, target, version, headers }) => {
      // A chunked request gets its last chunk, so a server that accepts it has a complete request to answer.
      // Host is always sent: node answers an HTTP/1.1 request without one by itself (see the report), before any hook.
      const text = `${method} ${target} ${version}\r\n${['Host: x', ...headers, 'Connection: close'].join('\r\n')}\r\n\r\n${headers.some((h) => /chunked/.test(h)) ? '0\r\n\r\n' : ''}`;
      const answer = await sendRaw(a.server.port, Buffer.from(text, 'latin1'), 3_000);
      const context = `${JSON.stringify(text)} → ${JSON.stringify(answer.slice(0, 400))}`;
      expect(answer, `no answer: ${context}`).to.not.equal('');
      const reply = parseRaw(answer);
      count(reply.status);
      expect(reply.status, context).to.be.within(200, 499);
      expect(reply.headers['x-request-id'], context).to.be.a('string');
      // A HEAD-less request with a chunked body never sent may only get its head before the timeout.
      if (method !== 'HEAD') expectEnvelope(reply.body, reply.status, context);
      expectNoPollution(before0, context);
    }, runs(300));
  });

  describe('criteria with SQL metacharacters and random operators (an oracle over every order)', () => {
    let server: TestServer;
    let orders: { salesOrderNumber: string; customerName: string }[];
    let fragments: string[];
    before(async () => {
      server = await startTestServer({ logLevel: 'error' });
      const rows = await salesDb(server.infrastructure.storage).selectFrom('sales_order as so').innerJoin('customer as c', 'c.customer_id', 'so.customer_id')
        .select(['so.sales_order_number', 'c.name']).execute();
      orders = rows.map((r) => ({ salesOrderNumber: r.sales_order_number, customerName: r.name }));
      const names = [...new Set(orders.map((o) => o.customerName))].slice(0, 40);
      fragments = ['', 'SO4', 'SO55', 'so5', '43', ...names.flatMap((n) => [n, n.slice(0, 3), n.slice(1, 4).toUpperCase(), n.split(' ')[0]])];
    });
    after(() => server?.stop());

    /** SQLite's lower(): ASCII only (the values below are ASCII, as are the names). */
    const lower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());
    const matches = (op: string, field: string, values: string[]) => {
      const [v] = values;
      switch (op) {
        case 'EQ': return field === v;
        case 'NEQ': return field !== v;
        case 'In': return values.includes(field);
        case 'NIn': return !values.includes(field);
        case 'CN': return lower(field).includes(lower(v));
        case 'NCN': return !lower(field).includes(lower(v));
        case 'SW': return lower(field).startsWith(lower(v));
        case 'NSW': return !lower(field).startsWith(lower(v));
        case 'LT': return field < v;
        case 'LE': return field <= v;
        case 'GT': return field > v;
        case 'GE': return field >= v;
        default: throw new Error(op);
      }
    };

    it('text criteria take metacharacters literally: exactly the orders a JavaScript filter finds, never more', async () => {
      const ascii = SQL_METACHARACTERS.filter((s) => !s.includes('\u0000'));
      const value = fc.tuple(fc.constantFrom(...fragments), fc.constantFrom(...ascii, ''), fc.constantFrom(...fragments), fc.boolean())
        .map(([x, meta, y, around]) => (around ? x + meta + y : meta + x));
      const query = fc.record({
        field: fc.constantFrom('customerName', 'salesOrderNumber'),
        // LT/GE on text follow the collation: the same as JavaScript's order on SQLite (and a C collation) only.
        op: fc.constantFrom('EQ', 'NEQ', 'In', 'NIn', 'CN', 'NCN', 'SW', 'NSW', ...(testProvider === 'sqlite' ? ['LT', 'GE'] : [])),
        values: fc.array(value, { minLength: 1, maxLength: 3 }),
        spelled: fc.constantFrom('upper', 'lower', 'as is'),
      });
      await check('sql oracle', 6, query, async ({ field, op, values: drawn, spelled }) => {
        const values = op === 'In' || op === 'NIn' ? drawn : drawn.slice(0, 1);
        const opText = spelled === 'upper' ? op.toUpperCase() : spelled === 'lower' ? op.toLowerCase() : op;
        const path = `/sales-order?${field}.operator=${opText}&${values.map((v) => `${field}=${encodeURIComponent(v)}`).join('&')}&take=1000&getTotalCount=true`;
        const req: RawRequest = { method: 'GET', path, headers: { Authorization: `Bearer ${server.token()}` } };
        const reply = await sendCounted(server.port, req);
        expectSaneAnswer(req, reply);
        const context = `${op} ${field} ${JSON.stringify(values)} → ${reply.status} ${reply.text.slice(0, 300)}`;
        expect(reply.status, context).to.equal(200);
        const body = JSON.parse(reply.text) as { result: Record<string, string>[]; totalCount: number };
        const expected = orders.filter((o) => matches(op, o[field as keyof typeof o], values)).length;
        expect(body.totalCount, `totalCount differs from the JavaScript filter: ${context}`).to.equal(expected);
        for (const row of body.result) expect(matches(op, row[field], values), `a row that does not match: ${row[field]} for ${context}`).to.equal(true);
      }, runs(300));
    });

    it('random operators and hostile values in every criteria field: 200 or a 400 envelope naming the field', async () => {
      const query = fc.array(fc.record({
        field: fc.constantFrom(...criteriaKeys),
        op: fc.option(operatorName, { nil: undefined }),
        values: fc.array(fc.oneof(hostileString, fc.constantFrom('1', '5', '2024-01-01', '2024-12-31T23:59:59Z', '100.5', 'true')), { maxLength: 3 }),
      }), { minLength: 1, maxLength: 4 });
      await check('criteria', 7, query, async (criteria) => {
        const parts = criteria.flatMap(({ field, op, values }) => [
          ...(op === undefined ? [] : [`${field}.operator=${encodeURIComponent(op.replace(/[\ud800-\udfff]/g, '?'))}`]),
          ...values.map((v) => `${field}=${encodeURIComponent(v.replace(/[\ud800-\udfff]/g, '?'))}`),
        ]);
        const req: RawRequest = { method: 'GET', path: `/sales-order?${parts.join('&')}&take=5`, headers: { Authorization: `Bearer ${server.token()}` } };
        const reply = await sendCounted(server.port, req);
        expectSaneAnswer(req, reply);
        const context = describePlan(req, reply);
        expect([200, 400, 414], context).to.include(reply.status);
        if (reply.status === 400) {
          const envelope = JSON.parse(reply.text) as { messages: { property?: string }[] };
          for (const m of envelope.messages) expect(m.property, `a criteria error without its property: ${context}`).to.be.a('string');
        }
      }, runs(400));
    });
  });
});
