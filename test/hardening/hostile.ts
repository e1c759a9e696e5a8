import { createHash } from 'node:crypto';
import { Agent, type IncomingHttpHeaders, request } from 'node:http';
import { connect } from 'node:net';
import { expect } from 'chai';
import fc from 'fast-check';
import { sql } from 'kysely';
import type { Storage } from 'restlayer';
import { salesDb } from '../support/sales-db.js';

/**
 * Shared by the hardening suites: raw HTTP (so paths and bodies go out byte for byte as generated), the checks every
 * answer must pass, hostile inputs as fast-check arbitraries, and fingerprints of process and database state.
 */

export interface RawRequest {
  method: string;
  /** Sent as is: may hold invalid percent-encoding. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** The request carried If-None-Match, so a 304 is a fine answer. */
  conditional?: boolean;
}

export interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/** One request with node:http (no URL normalisation, any method); resolves with status, headers and text. */
export function send(port: number, req: RawRequest): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { ...req.headers };
    if (req.body !== undefined) headers['Content-Length'] = Buffer.byteLength(req.body);
    const r = request({ host: '127.0.0.1', port, method: req.method, path: req.path, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.once('error', reject);
      res.once('end', () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
    });
    r.once('error', reject);
    r.end(req.body);
  });
}

/** Bytes straight onto a TCP socket; resolves with everything the server wrote until it closed (or `ms` passed). */
export function sendRaw(port: number, bytes: string | Buffer, ms = 10_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let out = '';
    const timer = setTimeout(() => socket.destroy(), ms);
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (out += d));
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(out);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? undefined : reject(err)));
    socket.write(bytes);
  });
}

/**
 * A client that sends its whole request before it reads anything (as many do), over a raw socket: the head, then
 * `bodyBytes` of body (raw, or chunked when the head says so), then it reads until the server closes. Resolves with
 * what it read and the error its writes or reads met, if any (EPIPE, ECONNRESET when the server reset the connection).
 */
export function sendAllThenRead(port: number, head: string, bodyBytes: number): Promise<{ answer: string; error?: string }> {
  const chunked = /transfer-encoding:\s*chunked/i.test(head);
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    let error: string | undefined;
    socket.setEncoding('latin1');
    // Nothing is read from the socket until the body is out: the answer waits in the kernel, as it would in such a client.
    socket.pause();
    socket.on('data', (d: string) => (answer += d));
    socket.on('error', (err: NodeJS.ErrnoException) => (error ??= err.code ?? err.message));
    socket.once('close', () => resolve({ answer, error }));
    const piece = Buffer.alloc(64 * 1024, 'a');
    let sent = 0;
    const pump = () => {
      while (sent < bodyBytes && !socket.destroyed) {
        const n = Math.min(piece.length, bodyBytes - sent);
        sent += n;
        const data = chunked ? Buffer.concat([Buffer.from(`${n.toString(16)}\r\n`), piece.subarray(0, n), Buffer.from('\r\n')]) : piece.subarray(0, n);
        if (!socket.write(data)) return void socket.once('drain', pump);
      }
      if (chunked && !socket.destroyed) socket.write('0\r\n\r\n');
      socket.resume();
    };
    socket.write(head);
    pump();
  });
}

/** A raw HTTP/1.1 answer split into status, headers (lower-case names) and body. */
export function parseRaw(answer: string): { status: number; headers: Record<string, string>; body: string } {
  const end = answer.indexOf('\r\n\r\n');
  expect(end, `no complete HTTP head in ${JSON.stringify(answer.slice(0, 300))}`).to.be.above(0);
  const [statusLine, ...lines] = answer.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]), headers, body: answer.slice(end + 4) };
}

const SEVERITIES = ['Info', 'Warning', 'Error', 'Critical'];
const TYPES = ['Validation', 'Functional', 'Security', 'Data', 'Concurrency', 'External', 'System', 'Message'];
/** What would give away the server's insides: a stack frame, a source file, a module path. */
const LEAK = /\n\s+at |\bat [\w.<>]+ \(|file:\/\/|node_modules|\/dist\/|\.(?:ts|js):\d+|\/work\/|\/home\/|\/tmp\//;

/** Asserts `text` is the contract's envelope, consistent with `status`, and gives nothing of the server away. */
export function expectEnvelope(text: string, status: number, context: string): { result?: unknown; messages: { code: string; severity: string; type: string }[] } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    expect.fail(`not JSON: ${context}`);
  }
  expect(body, context).to.be.an('object').that.is.not.an('array');
  const envelope = body as { result?: unknown; messages: { code: string; message: string; severity: string; type: string; property?: unknown }[]; totalCount?: unknown };
  expect(envelope.messages, context).to.be.an('array');
  for (const m of envelope.messages) {
    expect(m.code, context).to.be.a('string').that.is.not.empty;
    expect(m.message, context).to.be.a('string').that.is.not.empty;
    expect(SEVERITIES, context).to.include(m.severity);
    expect(TYPES, context).to.include(m.type);
    if ('property' in m) expect(m.property, context).to.be.a('string');
  }
  expect(Object.keys(envelope).filter((k) => !['result', 'messages', 'totalCount'].includes(k)), context).to.deep.equal([]);
  const errors = envelope.messages.filter((m) => m.severity === 'Error' || m.severity === 'Critical');
  if (status >= 400) expect(errors.length, `an error status without an error message: ${context}`).to.be.above(0);
  else expect(errors, `a success status with error messages: ${context}`).to.deep.equal([]);
  if (errors.length) expect(envelope, `a result next to an error: ${context}`).to.not.have.property('result');
  expect(text, `the body gives away server internals: ${context}`).to.not.match(LEAK);
  return envelope;
}

/**
 * The checks every answer of the API must pass, whatever was sent: 2xx or 4xx (304 only when asked), the envelope
 * (no body on HEAD, 204 and 304), no stack trace or path, and an X-Request-Id.
 */
export function expectSaneAnswer(req: RawRequest, reply: RawReply): void {
  const context = `${req.method} ${req.path.slice(0, 300)} → ${reply.status} ${reply.text.slice(0, 400)}`;
  const ok = (reply.status >= 200 && reply.status < 300) || reply.status === 304 && !!req.conditional || (reply.status >= 400 && reply.status < 500);
  expect(ok, `status ${reply.status} is neither 2xx nor 4xx: ${context}`).to.equal(true);
  expect(reply.headers['x-request-id'], `no X-Request-Id: ${context}`).to.be.a('string').that.is.not.empty;
  if (req.method === 'HEAD' || reply.status === 204 || reply.status === 304) {
    expect(reply.text, context).to.equal('');
    return;
  }
  expect(reply.headers['content-type'] ?? '', context).to.match(/^application\/json/);
  expectEnvelope(reply.text, reply.status, context);
}

// ---------------------------------------------------------------------------------------------------------------
// Prototype pollution

const prototypes: [string, object][] = [
  ['Object', Object.prototype], ['Array', Array.prototype], ['Function', Function.prototype], ['String', String.prototype],
  ['Number', Number.prototype], ['Boolean', Boolean.prototype], ['Date', Date.prototype], ['RegExp', RegExp.prototype],
  ['Promise', Promise.prototype], ['Error', Error.prototype],
];

/** The own property names of the built-in prototypes, to compare before and after. */
export function prototypeSnapshot(): Record<string, string[]> {
  return Object.fromEntries(prototypes.map(([name, proto]) => [name, Reflect.ownKeys(proto).map(String).sort()]));
}

/** Property names hostile inputs try to plant on prototypes. */
export const PLANTED = ['polluted', 'isAdmin', 'admin', 'roles', 'role', 'userName', 'status', 'x'];

/** Asserts no prototype gained (or lost) a property since `before`, and plain objects inherit nothing planted. */
export function expectNoPollution(before: Record<string, string[]>, context = ''): void {
  expect(prototypeSnapshot(), `built-in prototypes changed ${context}`).to.deep.equal(before);
  const plain = {} as Record<string, unknown>;
  const list = [] as unknown as Record<string, unknown>;
  const fn = (() => {}) as unknown as Record<string, unknown>;
  for (const name of PLANTED) {
    expect(plain[name], `({}).${name} ${context}`).to.equal(undefined);
    expect(list[name], `[].${name} ${context}`).to.equal(undefined);
    expect(fn[name], `(() => {}).${name} ${context}`).to.equal(undefined);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Database fingerprints

/** A SHA-256 over every column of every sales order, in id order. */
export async function salesOrderChecksum(storage: Storage): Promise<string> {
  const rows = await salesDb(storage).selectFrom('sales_order').selectAll().orderBy('sales_order_id').execute();
  const hash = createHash('sha256');
  for (const row of rows) hash.update(JSON.stringify(row, (_k, v: unknown) => (v instanceof Date ? v.toISOString() : typeof v === 'bigint' ? String(v) : v)) + '\n');
  return hash.digest('hex');
}

/**
 * A cheap fingerprint of sales_order that every write moves: an insert or delete changes count or max id, an update
 * raises a revision (and the modified date).
 */
export async function salesOrderFingerprint(storage: Storage): Promise<string> {
  const row = await sql<Record<string, unknown>>`select count(*) as n, coalesce(max(sales_order_id), 0) as top, coalesce(sum(revision_number), 0) as revisions, max(modified_date) as modified from sales_order`.execute(storage.db);
  return JSON.stringify(row.rows[0], (_k, v: unknown) => (v instanceof Date ? v.toISOString() : typeof v === 'bigint' ? String(v) : v));
}

// ---------------------------------------------------------------------------------------------------------------
// Hostile values

/** Text that would change a query if it were pasted into SQL, or act as a LIKE wildcard. */
export const SQL_METACHARACTERS = [
  "' OR 1=1 --", "' OR '1'='1", '" OR ""="', "'; DROP TABLE sales_order; --", '; select 1', '%', '_', '%%', '_%_', '\\', '\\%', '\\_',
  "'", '"', '`', ';', '--', '/*', '*/', '\u0000', 'a\u0000b', "%' OR 1=1 --", "\\' OR 1=1 --", '$1', '?', ':name', '@p0', 'null', 'NULL',
];

/** Numbers at and past every edge, as JSON number texts. */
export const HUGE_NUMBER_TEXTS = [
  '1e308', '-1e308', '1e309', '1e400', '-0', '0', '-0.0', '18446744073709551616', '9223372036854775808', '9007199254740993',
  '9007199254740991', '2147483647', '2147483648', '-2147483649', '123456789012345678901234567890', '0.1e-400', '4.9e-324',
  '1.7976931348623157e308', '00', '1.0', '1e3',
];

/** Strings that are hard on parsers, databases and printers. */
export const HOSTILE_STRINGS = [
  ...SQL_METACHARACTERS, '', ' ', '__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', '\ud800', '\udfff\ud800',
  '\u202e', '\ufeff', '😀', 'ǅ', '\r\n', '\t', '<script>alert(1)</script>', '${7*7}', '{{7*7}}', '../../etc/passwd', '..\\..\\',
  'true', 'false', 'TRUE', '1', '-1', '1e308', 'NaN', 'Infinity', '2024-02-30', '2024-13-01', '0000-01-01T00:00+23:59', '9999-12-31T23:59-23:59',
  '2024-05-31T14:30:00Z', '2024-01-01', 'x'.repeat(129), 'y'.repeat(5000),
];

export const OPERATOR_NAMES = ['EQ', 'NEQ', 'In', 'NIn', 'LT', 'LE', 'GT', 'GE', 'BW', 'NBW', 'CN', 'NCN', 'SW', 'NSW', 'NL', 'NNL'];

/** An operator name as sent: a real one in any case, or something that is not one. */
export const operatorName = fc.oneof(
  fc.constantFrom(...OPERATOR_NAMES).chain((op) => fc.constantFrom(op, op.toLowerCase(), op.toUpperCase())),
  fc.constantFrom('', 'LIKE', 'OR', '=', '__proto__', 'constructor', 'toString', "EQ' --", 'E Q', 'BETWEEN', 'eq\u0000'),
  fc.string({ maxLength: 6 }),
);

/** A string that is hostile most of the time and arbitrary otherwise (any code points, lone surrogates included). */
export const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...SQL_METACHARACTERS), fc.string({ maxLength: 5 })).map(([a, b]) => a + b) },
);

/** A JSON scalar as text: edge numbers, hostile strings (escaped by JSON.stringify), booleans, null. */
const jsonScalar = fc.oneof(
  fc.constantFrom(...HUGE_NUMBER_TEXTS),
  fc.integer().map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((d) => JSON.stringify(d)),
  hostileString.map((s) => JSON.stringify(s)),
  fc.constantFrom('true', 'false', 'null'),
  fc.integer({ min: 1000, max: 200_000 }).map((n) => JSON.stringify('z'.repeat(n))),
);

/** Property names: the real ones in any case, prototype names, and arbitrary text. */
export const propertyName = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty', 'polluted', 'isAdmin', '__defineGetter__'),
  fc.constantFrom('status', 'onlineOrderFlag', 'customerId', 'comment', 'revisionNumber', 'shipDate', 'dueDate', 'purchaseOrderNumber',
    'accountNumber', 'userName', 'password', 'accessToken', 'refreshToken', 'type').chain((k) => fc.constantFrom(k, k.toUpperCase(), k.toLowerCase())),
  fc.string({ maxLength: 10 }),
);

/**
 * JSON texts built by hand, so they can hold what JSON.stringify never writes: `__proto__` keys, duplicate keys,
 * number texts past double precision.
 */
export const jsonText: fc.Arbitrary<string> = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, jsonScalar, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 5 }).map((items) => `[${items.join(',')}]`),
  object: fc.array(fc.tuple(propertyName, tie('value')), { maxLength: 6 }).map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
})).value;

/** Attempts at planting a property on Object.prototype through a JSON body. */
export const pollutingJson = fc.constantFrom(
  '{"__proto__":{"polluted":"yes","isAdmin":true}}',
  '{"constructor":{"prototype":{"polluted":"yes"}}}',
  '{"status":1,"__proto__":{"roles":["Administrator"]}}',
  '{"a":{"__proto__":{"polluted":"yes"}},"b":[{"__proto__":{"x":1}}]}',
  '{"__proto__":[],"constructor":{"prototype":{"isAdmin":true}},"prototype":{"polluted":1}}',
  '[{"__proto__":{"polluted":"yes"}}]',
  '{"toString":1,"valueOf":1,"hasOwnProperty":1}',
  '{"__defineGetter__":1,"__lookupGetter__":{"polluted":1}}',
);

/** An object of the real input fields (in any case), each set to a valid or a hostile value: reaches the services. */
export const nearlyValidJson = fc.dictionary(
  fc.constantFrom('status', 'onlineOrderFlag', 'customerId', 'comment', 'revisionNumber', 'shipDate', 'dueDate', 'purchaseOrderNumber', 'accountNumber',
    'userName', 'password', 'accessToken', 'refreshToken').chain((k) => fc.constantFrom(k, k.toUpperCase())),
  fc.oneof(fc.constantFrom('1', '2', '5', 'true', 'false', '11000', '29825', '"2030-01-01"', '"a comment"', 'null', '1'), jsonScalar),
  { maxKeys: 9 },
).map((d) => `{${Object.entries(d).map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);

/** Objects or arrays nested up to 10,000 levels, around a value or empty. */
export const deepJson = fc.tuple(fc.integer({ min: 60, max: 10_000 }), fc.constantFrom('[', '{"a":', '{"__proto__":', '{"status":['), fc.constantFrom('1', '', '"x"')).map(
  ([depth, open, inner]) => {
    const close = open === '[' ? ']' : open === '{"status":[' ? ']}' : '}';
    const core = open === '[' ? inner : inner || '1';
    return open.repeat(depth) + core + close.repeat(depth);
  },
);

/** Texts that are not JSON. */
export const malformedJson = fc.oneof(
  fc.constantFrom('{', '}', '{"a":}', "{'a':1}", '[1,]', 'nul', 'tru', '{"a":1}}', '\u0000', '{"a":"\\x"}', '{"a":01}', '{"a":NaN}', 'Infinity',
    '{"a":1,}', '{"a" 1}', '"unterminated', '{"a":"\\ud800"', '\ufeff\ufeff{}', '<xml/>', 'status=1&customerId=2', '--x\r\n\r\n--x--'),
  fc.string({ maxLength: 40 }),
);

/** A JSON body with bytes that are not UTF-8 inside a string and around it. */
export const invalidUtf8Body = fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 24 }), fc.constantFrom('comment', 'userName', 'status', 'x')).map(([bytes, key]) =>
  Buffer.concat([Buffer.from(`{"${key}":"`), Buffer.from([0xff, 0xfe, 0xc3, ...bytes, 0xe0, 0xa4]), Buffer.from('"}')]));

/** Content types a client might send (or omit). */
export const contentType = fc.constantFrom<string | undefined>(
  'application/json', 'application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'application/json; charset=utf-16',
  'application/json; charset=nonsense', 'application/vnd.api+json', 'text/plain', 'text/json', 'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded', 'application/xml', 'application/json, text/plain', '*/*', ';;;', undefined,
);

/** Every JSON-ish body the suites send. */
export const hostileBody: fc.Arbitrary<string | Buffer> = fc.oneof(
  { weight: 4, arbitrary: jsonText },
  { weight: 3, arbitrary: nearlyValidJson },
  { weight: 1, arbitrary: pollutingJson },
  { weight: 1, arbitrary: deepJson },
  { weight: 2, arbitrary: malformedJson },
  { weight: 1, arbitrary: invalidUtf8Body },
);

/** Text for a path segment or query part: percent-encoded, except for deliberately broken escapes kept raw. */
export const urlPart = fc.oneof(
  { weight: 4, arbitrary: hostileString.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd'))) },
  { weight: 2, arbitrary: fc.constantFrom('%E0%A4%A', '%zz', '%', '%%', '%00', '%C0%80', '%ED%A0%80', '%FF', '%E0%A4', '%2', '%u0041', '%252e', '..%2F..%2F', '%2e%2e', '.', '..') },
  { weight: 1, arbitrary: fc.tuple(hostileString, fc.constantFrom('%E0%A4%A', '%zz', '%')).map(([s, bad]) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '\ufffd')) + bad) },
  { weight: 2, arbitrary: fc.oneof(fc.integer({ min: 43659, max: 55658 }).map(String), fc.constantFrom(...HUGE_NUMBER_TEXTS), fc.integer().map(String)) },
);
