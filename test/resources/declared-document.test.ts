import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { deriveStored, sql } from 'restlayer';
import { resourceProxy } from 'restlayer/client';
import { proxyDrift, resourceDrift } from 'restlayer/testing';
import { expectError, expectOk } from '../support/api.js';
import { clientFor } from '../client/support.js';
import { invoice, invoiceModule } from '../support/invoice-module.js';
import { type Reply, type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';
import { FAST_HASH, addUser } from '../support/users.js';

const routesDir = fileURLToPath(new URL('../support/invoice-routes/', import.meta.url));
const MAX_LINES = 4;
/** Amounts compared in ten-thousandths (integers): the test does no binary floating-point sums. */
const units = (value: unknown) => Math.round(Number(value) * 10_000);

const InvoiceProxy = resourceProxy<typeof invoice>({
  name: 'invoice', key: 'invoiceId', dates: { paidOn: true, linesChangedOn: true, modifiedDate: true },
  children: { lines: { item: 'line', path: 'line', key: 'invoiceLineId' } }, actions: { pay: true, markPaid: true },
});

/**
 * Issue 39: a header + lines resource run from its declaration alone (test/support/invoice-module.ts) — the child
 * collection's routes with the parent's totals kept in the same write, its cap, derived fields, a rule with the
 * record before and after, an action (permission, route, input, audit operation, OpenAPI entry, proxy method), a
 * multi-word action (key markPaid, wire names mark-paid) and a default operation wrapped by the service's own code —
 * over HTTP, on both stores.
 */
describeStores('a declared document: lines, totals, rules, an action, a wrapped default', function () {
  this.timeout(120_000);
  let server: TestServer;
  let customerId: number;

  before(async () => {
    // A role granted the multi-word action's permission (a permission is lower-case: invoice.markPaid is refused as
    // configuration), and one granted the other action's only.
    const Roles = { InvoiceMarker: ['invoice.read', 'invoice.mark-paid'], InvoicePayer: ['invoice.read', 'invoice.pay'] };
    server = await startTestServer({ routesDir, modules: [invoiceModule], config: { ...FAST_HASH, Documents: { MaxLines: MAX_LINES }, Authorization: { Roles } } });
    const { rows } = await sql<{ id: number }>`select min(customer_id) as id from customer`.execute(server.infrastructure.storage.db);
    customerId = Number(rows[0].id);
  });
  after(() => server?.stop());

  const create = (body: object) => server.call('/invoice', { method: 'POST', body });
  const read = async (id: number) => expectOk(await server.call(`/invoice/${id}`)).result as Record<string, unknown> & { lines: Record<string, unknown>[]; revisionNumber: number };
  const lines = [{ description: 'Pen', quantity: 3, unitPrice: 1.1 }, { description: 'Ink', quantity: 1, unitPrice: 2.35 }];
  const newInvoice = async (body: object = {}) => expectOk(await create({ customerId, freight: 5, lines, ...body }), 201).result.invoiceId as number;
  const history = async (id: number) => expectOk(await server.call(`/invoice/${id}/history`)).result as { operation: string; changes: { field: string; old?: unknown; new?: unknown }[] }[];

  it('create with lines: the number from the key, each lineTotal derived exactly, subTotal their sum, totalDue derived from it', async () => {
    const reply = await create({ customerId, freight: 5, lines });
    const created = expectOk(reply, 201).result as { invoiceId: number; number: string; revisionNumber: number };
    expect(created.number).to.equal(`INV${created.invoiceId}`);
    expect(reply.headers.get('location')).to.match(new RegExp(`/invoice/${created.invoiceId}$`));
    const got = await read(created.invoiceId);
    expect(got.lines.map((l) => units(l.lineTotal))).to.deep.equal([33_000, 23_500]);
    expect([units(got.subTotal), units(got.totalDue), got.paid, got.revisionNumber]).to.deep.equal([56_500, 106_500, false, 1]);
    expect(got.customerName).to.be.a('string');
  });

  it('line writes answer the line\'s total and the invoice\'s new totals and revision, in one write each; a stale revision is a 409', async () => {
    const id = await newInvoice();
    const added = await server.call(`/invoice/${id}/line`, { method: 'POST', body: { description: 'Pad', quantity: 2, unitPrice: 4, revisionNumber: 1 } });
    const line = expectOk(added, 201).result as Record<string, number>;
    expect(added.headers.get('location')).to.match(new RegExp(`/invoice/${id}/line/${line.invoiceLineId}$`));
    expect([units(line.lineTotal), units(line.subTotal), units(line.totalDue), line.revisionNumber]).to.deep.equal([80_000, 136_500, 186_500, 2]);
    const path = `/invoice/${id}/line/${line.invoiceLineId}`;
    expectError(await server.call(path, { method: 'PUT', body: { description: 'Pad', quantity: 1, unitPrice: 4, revisionNumber: 1 } }), 409, 'Entity_Concurrency', 'revisionNumber');
    const patched = expectOk(await server.call(path, { method: 'PATCH', body: { quantity: 5 }, headers: { 'Content-Type': 'application/merge-patch+json' } })).result as Record<string, number>;
    expect([units(patched.lineTotal), units(patched.subTotal), patched.revisionNumber]).to.deep.equal([200_000, 256_500, 3]);
    const removed = expectOk(await server.call(`${path}?revisionNumber=3`, { method: 'DELETE' })).result as Record<string, number>;
    expect(removed).to.not.have.property('invoiceLineId');
    expect([units(removed.subTotal), units(removed.totalDue), removed.revisionNumber]).to.deep.equal([56_500, 106_500, 4]);
    const after = await read(id);
    expect(after.lines).to.have.length(2);
    const entries = await history(id);
    expect(entries.map((e) => e.operation)).to.deep.equal(['line-delete', 'line-patch', 'line-create', 'create']);
    expect(entries[1].changes).to.deep.include({ field: `lines[${line.invoiceLineId}].quantity`, old: 2, new: 5 });
    // The invoice's rule ran for each line write and set a field of the invoice, stored and audited with the write.
    const changedOn = entries.map((e) => e.changes.find((c) => c.field === 'linesChangedOn')?.new);
    expect(changedOn[3]).to.equal(undefined);
    expect(changedOn.slice(0, 3).every((t) => typeof t === 'string')).to.equal(true);
    expect(changedOn[0]).to.equal(after.linesChangedOn);
  });

  it('a line of another invoice is a 404 like an unknown one; a line past Documents:MaxLines is a 400 on lines, nothing written', async () => {
    const id = await newInvoice();
    const other = await newInvoice();
    const otherLine = (await read(other)).lines[0].invoiceLineId as number;
    expectError(await server.call(`/invoice/${id}/line/${otherLine}`), 404, 'Entity_NotFound');
    expectError(await server.call(`/invoice/${id}/line/${otherLine}`, { method: 'DELETE' }), 404, 'Entity_NotFound');
    for (let i = lines.length; i < MAX_LINES; i++) expectOk(await server.call(`/invoice/${id}/line`, { method: 'POST', body: lines[0] }), 201);
    const before = await read(id);
    expectError(await server.call(`/invoice/${id}/line`, { method: 'POST', body: lines[0] }), 400, 'Document_TooManyLines', 'lines');
    expect(await read(id)).to.deep.equal(before);
    expectError(await create({ customerId, lines: Array(MAX_LINES + 1).fill(lines[0]) }), 400, 'Document_TooManyLines', 'lines');
  });

  it('a line\'s reference is resolved per line: an unknown one is a 400 on its path (lines[1].shipTo), a known one is stored', async () => {
    const unknown = 2_000_000_000;
    expectError(await create({ customerId, lines: [{ ...lines[0], shipTo: customerId }, { ...lines[1], shipTo: unknown }] }), 400, 'Invoice_UnknownCustomer', 'lines[1].shipTo');
    const id = await newInvoice({ lines: [{ ...lines[0], shipTo: customerId }] });
    expect((await read(id)).lines[0].shipTo).to.equal(customerId);
    expectError(await server.call(`/invoice/${id}/line`, { method: 'POST', body: { ...lines[1], shipTo: unknown } }), 400, 'Invoice_UnknownCustomer', 'shipTo');
  });

  it('a customer a line ships to is in use (409 naming the invoice lines); a deleted one is an unknown shipTo for a line\'s PATCH', async () => {
    const shipTo = expectOk(await server.call('/customer', { method: 'POST', body: { name: 'Ship To Cycles' } }), 201).result.customerId as number;
    const id = await newInvoice({ lines: [{ ...lines[0], shipTo }] });
    const m = expectError(await server.call(`/customer/${shipTo}`, { method: 'DELETE' }), 409, 'Entity_InUse');
    expect(m.message).to.match(/1 invoice line refers to it/);
    const line = (await read(id)).lines[0].invoiceLineId as number;
    const patchLine = (body: object) => server.call(`/invoice/${id}/line/${line}`, { method: 'PATCH', body, headers: { 'Content-Type': 'application/merge-patch+json' } });
    expectOk(await patchLine({ shipTo: null }));
    expectOk(await server.call(`/customer/${shipTo}`, { method: 'DELETE' }));
    expectError(await patchLine({ shipTo }), 400, 'Invoice_UnknownCustomer', 'shipTo');
  });

  // A write resolves its references before its transaction; a delete between would not see it refer: the write reads
  // them again under a lock (PostgreSQL: for key share against the delete's for update), as a create does.
  for (const [what, property, pathOf] of [
    ['line writes', 'shipTo', async (id: number) => `/invoice/${id}/line/${(await read(id)).lines[0].invoiceLineId as number}`],
    ['invoice PATCHes', 'billTo', async (id: number) => `/invoice/${id}`],
  ] as const) {
    it(`a customer delete racing ${what} that name the customer (${property}) never leaves one naming a deleted customer`, async () => {
      for (let round = 0; round < 5; round++) {
        const target = expectOk(await server.call('/customer', { method: 'POST', body: { name: `Race ${property} ${round}` } }), 201).result.customerId as number;
        const ids = await Promise.all([newInvoice(), newInvoice()]);
        const paths = await Promise.all(ids.map(pathOf));
        const patch = (path: string) => server.call(path, { method: 'PATCH', body: { [property]: target }, headers: { 'Content-Type': 'application/merge-patch+json' } });
        const replies = await Promise.all([patch(paths[0]), server.call(`/customer/${target}`, { method: 'DELETE' }), patch(paths[1])]);
        const [deleted, written] = [replies[1], [replies[0], replies[2]].filter((r) => r.status === 200)];
        if (deleted.status === 200) {
          expect(written, `round ${round}: ${what} naming a deleted customer`).to.have.length(0);
          for (const id of ids) {
            const invoice = await read(id);
            expect(property === 'shipTo' ? invoice.lines[0].shipTo : invoice.billTo).to.not.equal(target);
          }
        } else {
          expect(deleted.status, deleted.text).to.equal(409);
          expect(written.length).to.be.greaterThan(0);
          expectOk(await server.call(`/customer/${target}`));
        }
      }
    });
  }

  it('the action: its own permission and route, its input, its audit operation; then the rule keeps a paid invoice as it is', async () => {
    const id = await newInvoice();
    const pay = (body: object, token?: string) => server.call(`/invoice/${id}/pay`, { method: 'POST', body, token });
    expectError(await pay({ paidOn: '2030-01-02T00:00:00Z' }, server.token({ role: ['Viewer'] })), 403, 'Security_Forbidden');
    expectError(await pay({}), 400, 'Input_Required', 'paidOn');
    expect(expectOk(await pay({ paidOn: '2030-01-02T00:00:00Z', revisionNumber: 1 })).result).to.include({ revisionNumber: 2 });
    const paid = await read(id);
    expect([paid.paid, paid.paidOn]).to.deep.equal([true, '2030-01-02T00:00:00.000Z']);
    const [entry] = await history(id);
    expect(entry.operation).to.equal('pay');
    expect(entry.changes).to.deep.include({ field: 'paid', old: false, new: true });
    expectError(await pay({ paidOn: '2030-01-03T00:00:00Z' }), 400, 'Invoice_AlreadyPaid');
    const refused: Reply[] = [
      await server.call(`/invoice/${id}`, { method: 'PUT', body: { freight: 1 } }),
      await server.call(`/invoice/${id}/line`, { method: 'POST', body: lines[0] }),
      await server.call(`/invoice/${id}/line/${paid.lines[0].invoiceLineId}`, { method: 'PUT', body: lines[1] }),
      await server.call(`/invoice/${id}/line/${paid.lines[0].invoiceLineId}`, { method: 'DELETE' }),
    ];
    for (const reply of refused) expectError(reply, 400, 'Invoice_Paid');
    expect(await read(id)).to.deep.equal(paid);
  });

  it('a multi-word action (key markPaid): POST …/mark-paid with permission invoice.mark-paid, audited as mark-paid, in the document as IInvoiceService.markPaid, proxy.markPaid', async () => {
    const id = await newInvoice();
    const markPaid = (path: string, token?: string) => server.call(`/invoice/${id}/${path}`, { method: 'POST', body: {}, token });
    // Served at its kebab-case path only; its permission is the path's, not the key's.
    expect((await markPaid('markPaid')).status).to.equal(404);
    expectError(await markPaid('mark-paid', server.token({ role: ['InvoicePayer'] })), 403, 'Security_Forbidden');
    expect(expectOk(await markPaid('mark-paid', server.token({ role: ['InvoiceMarker'] }))).result).to.include({ revisionNumber: 2 });
    const paid = await read(id);
    expect(paid.paid).to.equal(true);
    expect(paid.paidOn).to.be.a('string');
    const [entry] = await history(id);
    expect(entry.operation).to.equal('mark-paid');
    expect(entry.changes).to.deep.include({ field: 'paid', old: false, new: true });
    // The rule sees the operation mark-paid, which is no pay: a paid invoice stays as it is.
    expectError(await markPaid('mark-paid'), 400, 'Invoice_Paid');

    type Doc = { paths: Record<string, Record<string, { operationId: string; 'x-permission': string }>> };
    const reply = await server.call('/openapi.json');
    const doc = (reply.body.result ?? reply.body) as Doc;
    expect(doc.paths['/invoice/{invoiceId}/mark-paid'].post).to.include({ operationId: 'IInvoiceService.markPaid', 'x-permission': 'invoice.mark-paid' });
    expect(doc.paths['/invoice/{invoiceId}/pay'].post).to.include({ operationId: 'IInvoiceService.pay', 'x-permission': 'invoice.pay' });
    expect(Object.keys(doc.paths).filter((path) => path.startsWith('/invoice/{invoiceId}/mark'))).to.deep.equal(['/invoice/{invoiceId}/mark-paid']);

    await addUser(server, 'mia', 'mia-password-1', ['InvoiceMarker']);
    const client = clientFor(server);
    expect((await client.login('mia', 'mia-password-1')).messages).to.deep.equal([]);
    const proxy = new InvoiceProxy(client);
    const other = await newInvoice();
    expect((await proxy.markPaid(other, { revisionNumber: 1 })).messages).to.deep.equal([]);
    expect((await proxy.read(other)).result).to.include({ paid: true }).and.have.property('paidOn').that.is.instanceOf(Date);
    expect((await history(other))[0].operation).to.equal('mark-paid');
  });

  it('a lookup table the declaration brings: served and cached as any, its text ids checked in their case, an inactive one refused, lists filter on it', async () => {
    const table = expectOk(await server.call('/lookup-table/invoice-currency')).result as { caseSensitive: boolean; data: object[] };
    expect(table.caseSensitive).to.equal(true);
    expect(table.data).to.deep.equal([
      { id: 'EUR', text: 'Euro', isActive: true, attributes: {} },
      { id: 'USD', text: 'US dollar', isActive: true, attributes: { symbol: '$' } },
      { id: 'FRF', text: 'French franc', isActive: false, attributes: {} },
    ]);
    expect((await read(await newInvoice())).currencyCode).to.equal('EUR');
    for (const code of ['FRF', 'eur', 'XYZ']) expectError(await create({ customerId, currencyCode: code }), 400, 'Invoice_InvalidCurrencyCode', 'currencyCode');
    const usd = await newInvoice({ currencyCode: 'USD' });
    const listed = expectOk(await server.call('/invoice?currencyCode=USD')).result as { invoiceId: number }[];
    expect(listed.map((i) => i.invoiceId)).to.deep.equal([usd]);
  });

  it('deriveStored: the derived values and totals of stored records computed again as a write would, nothing else changed', async () => {
    const id = await newInvoice();
    const stored = await read(id);
    const { db, dialect } = server.infrastructure.storage;
    // As a migration that adds the columns leaves the records made before: zeros (the test's columns are NOT NULL).
    await sql`update invoice_line set line_total = ${dialect.money(0)} where invoice_id = ${id}`.execute(db);
    await sql`update invoice set sub_total = ${dialect.money(0)}, total_due = ${dialect.money(0)} where invoice_id = ${id}`.execute(db);
    const blank = await read(id);
    expect([blank.lines.map((l) => units(l.lineTotal)), units(blank.subTotal), units(blank.totalDue)]).to.deep.equal([[0, 0], 0, 0]);
    // Columns a migration did not add are not its to compute; the lines' amount, and what follows from it, are.
    expect(await deriveStored(db, dialect, invoice, ['invoice.freight'])).to.equal(0);
    expect(await deriveStored(db, dialect, invoice, ['invoice_line.line_total'])).to.equal(3);
    expect(await read(id)).to.deep.equal(stored);
    expect(await history(id)).to.have.length(1);
    expect(await deriveStored(db, dialect, invoice)).to.equal(0);
  });

  it('the service\'s own delete wraps the default: a paid invoice is a 409, an unpaid one is deleted, an unknown one the default\'s 404', async () => {
    const paid = await newInvoice();
    expectOk(await server.call(`/invoice/${paid}/pay`, { method: 'POST', body: { paidOn: '2030-01-02T00:00:00Z' } }));
    expectError(await server.call(`/invoice/${paid}`, { method: 'DELETE' }), 409, 'Invoice_Paid');
    const unpaid = await newInvoice();
    expectOk(await server.call(`/invoice/${unpaid}`, { method: 'DELETE' }));
    expectError(await server.call(`/invoice/${unpaid}`), 404, 'Entity_NotFound');
    expectError(await server.call(`/invoice/${unpaid}`, { method: 'DELETE' }), 404, 'Entity_NotFound');
  });

  it('resourceDrift makes a valid call of the action from its declared input (paidOn a date), so a project\'s drift test passes with an action added', async () => {
    // Without its sample call, the drift check names IInvoiceService.pay as a method it cannot check.
    expect(await proxyDrift({ routesDir }, InvoiceProxy, resourceDrift(InvoiceProxy, invoice))).to.deep.equal([]);
  });

  it('the OpenAPI document has the action\'s operation, and the proxy its method', async () => {
    type Doc = { paths: Record<string, Record<string, { operationId: string; requestBody: { content: Record<string, { schema: { required: string[] } }> } }>> };
    const reply = await server.call('/openapi.json');
    const post = ((reply.body.result ?? reply.body) as Doc).paths['/invoice/{invoiceId}/pay'].post;
    expect(post.operationId).to.equal('IInvoiceService.pay');
    expect(post.requestBody.content['application/json'].schema.required).to.deep.equal(['paidOn']);
    await addUser(server, 'ivy', 'ivy-password-1', ['Administrator']);
    const client = clientFor(server);
    expect((await client.login('ivy', 'ivy-password-1')).messages).to.deep.equal([]);
    const proxy = new InvoiceProxy(client);
    const id = await newInvoice();
    const output = await proxy.pay(id, { paidOn: new Date('2030-01-04T00:00:00Z') });
    expect(output.messages).to.deep.equal([]);
    expect((await proxy.read(id)).result).to.include({ paid: true }).and.have.property('paidOn').that.is.instanceOf(Date);
  });
});
