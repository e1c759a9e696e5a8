import { expect } from 'chai';
import { CATALOGUE, missingTexts, supportedLanguages } from 'restlayer';
import { HttpCore, acceptLanguage } from 'restlayer/client';
import { type TestServer, startTestServer } from '../support/server.js';
import { describeStores } from '../support/stores.js';

/** Contract part 16: messages in the caller's language, the code unchanged. */
describeStores('messages in the caller\'s language (issue 41, part 16)', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer();
  });
  after(() => server.stop());

  const lang = (value: string) => ({ headers: { 'Accept-Language': value } });

  it('ships English and German, and every code of the layer and the sample has a text in each', () => {
    expect(supportedLanguages()).to.include.members(['en', 'de']);
    expect(missingTexts()).to.deep.equal([]);
  });

  it('a German caller gets German texts with the same code, Content-Language and Vary: Accept-Language', async () => {
    const english = await server.call('/no-such-thing');
    const german = await server.call('/no-such-thing', lang('de-AT,de;q=0.9,en;q=0.5'));
    expect(german.status).to.equal(404);
    expect(german.body.messages.map((m) => m.code)).to.deep.equal(english.body.messages.map((m) => m.code));
    expect(german.body.messages[0].message).to.equal('Unter GET /no-such-thing gibt es keine Ressource.');
    expect(english.body.messages[0].message).to.equal(CATALOGUE.Route_NotFound.text({ method: 'GET', path: '/no-such-thing' }));
    expect(german.headers.get('content-language')).to.equal('de');
    expect(english.headers.get('content-language')).to.equal('en');
    for (const reply of [german, english]) expect(reply.headers.get('vary')).to.match(/accept-language/i);
  });

  it('the supported language with the highest weight wins; an unsupported or refused one falls back to English', async () => {
    const cases: [string, string][] = [
      ['en;q=0.9, de;q=0.8', 'en'], ['de;q=0.8, en;q=0.7', 'de'], ['fr, de;q=0.1', 'de'], ['fr', 'en'], ['de;q=0', 'en'], ['DE-ch', 'de'], ['*', 'en'],
    ];
    for (const [header, expected] of cases) {
      const reply = await server.call('/sales-order/2147483000', lang(header));
      expect(reply.headers.get('content-language'), header).to.equal(expected);
      expect(reply.body.messages[0].code, header).to.equal('Entity_NotFound');
    }
    const german = await server.call('/sales-order/2147483000', lang('de'));
    expect(german.body.messages[0].message).to.equal('Verkaufsauftrag mit der ID 2147483000 wurde nicht gefunden.');
  });

  it('input messages keep the property in front of a German predicate, English values of known terms translated', async () => {
    const reply = await server.call('/customer', { method: 'POST', body: { name: 'x'.repeat(101), accountNumber: 5 }, ...lang('de') });
    expect(reply.status).to.equal(400);
    const byProperty = Object.fromEntries(reply.body.messages.map((m) => [m.property, m]));
    expect(byProperty.name.code).to.equal('Input_TooLong');
    expect(byProperty.name.message).to.equal('name darf höchstens 100 Zeichen lang sein.');
    expect(byProperty.accountNumber.message).to.equal('accountNumber muss ein Text sein.');
  });

  it('the application\'s own codes are answered in German too', async () => {
    const body = { customerId: 2147483000, status: 99, onlineOrderFlag: false };
    const reply = await server.call('/sales-order', { method: 'POST', body, ...lang('de') });
    expect(reply.status).to.equal(400);
    const texts = Object.fromEntries(reply.body.messages.map((m) => [m.code, m.message]));
    // The layer's code of a reference, made from the resource's name: its template's German, with the entity's word.
    expect(texts.SalesOrder_UnknownCustomer).to.equal('Kunde mit der ID 2147483000 wurde nicht gefunden.');
    expect(texts.SalesOrder_InvalidStatus).to.equal('Der Status 99 ist kein gültiger Status eines Verkaufsauftrags.');
    const english = await server.call('/sales-order', { method: 'POST', body });
    expect(english.body.messages.map((m) => m.message)).to.include('Status 99 is not a valid sales order status.');
  });

  it('codes made from a resource\'s name follow the language too', async () => {
    const reply = await server.call('/customer', { method: 'POST', body: { name: 'Somewhere', territoryId: 999 }, ...lang('de') });
    expect(reply.status).to.equal(400);
    expect(reply.body.messages.map((m) => [m.code, m.message])).to.deep.equal([
      ['Customer_InvalidTerritoryId', 'territoryId 999 ist kein aktiver Eintrag der Nachschlagetabelle sales-territory.'],
    ]);
  });

  it('an answer without messages says no language', async () => {
    const reply = await server.call('/lookup-table/sales-order-status', lang('de'));
    expect(reply.status).to.equal(200);
    expect(reply.headers.get('content-language')).to.equal(null);
  });

  it('the OpenAPI document lists every code, the application\'s included, with its English template', async () => {
    const reply = await server.call('/openapi.json');
    const listed = reply.body.result.components['x-messages'] as Record<string, { message: string; status: number }>;
    expect(listed.Route_NotFound.message).to.equal('No resource is found at {method} {path}.');
    expect(listed.SalesOrder_InvalidStatus).to.deep.include({ status: 400, message: 'Status {value} is not a valid sales order status.' });
    expect(listed.Input_TooLong.message).to.equal('must be at most {max} characters long.');
    expect(listed.Operator_NotSupported.message).to.equal('Operator {operator} is not supported for {field}.');
    // A code made from a resource's name, by the layer's template.
    expect(listed.Customer_InvalidTerritoryId).to.deep.include({ status: 400, type: 'Validation', message: '{field} {value} is not an active entry of lookup table {table}.' });
  });

  it('the client sends the user\'s languages as Accept-Language and reads the answer in the first the server has', async () => {
    expect(acceptLanguage(['fr-CA', 'de-AT', 'en'])).to.equal('fr-CA, de-AT;q=0.9, en;q=0.8');
    const settings = { ClientName: 'test', BaseAddress: `http://127.0.0.1:${server.port}`, BasePath: '', Authorization: true, RefreshTokenPath: 'auth/refresh' };
    const http = new HttpCore(settings, { language: ['fr-CA', 'de-AT', 'en'] });
    const reply = await http.send({ verb: 'GET', path: '/no-such-thing' });
    expect(reply.headers.get('content-language')).to.equal('de');
    expect(reply.output.messages[0].message).to.equal('Unter GET /no-such-thing gibt es keine Ressource.');
  });
});
