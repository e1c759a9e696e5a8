import { expect } from 'chai';
import { type TestServer, resourceSuite } from 'restlayer/testing';
import { describeStores } from '../support/stores.js';
import { suiteProbeApplication } from './suite-probe/suite-probe-module.js';
import { suiteOrder, suiteProbe, suiteRuled } from './suite-probe/suite-probe.js';

/**
 * resourceSuite over declarations that hold every kind of input field (text, integer, decimal, money, date, boolean,
 * a lookup of text ids, a reference), a read-through, a derived amount, a default, a create-only field and a scope,
 * with values it generates from the field types; and over a resource whose rule refuses those values, with the
 * team's `sample`: the suite then sends no valid value of its own making (a rule's 400 would fail it); and over a header
 * with lines and their total.
 */
describeStores('resourceSuite', () => {
  resourceSuite({
    application: suiteProbeApplication,
    resource: suiteProbe,
    scopes: {
      graded: {
        attributes: { grade: 'B' },
        async enter(server: TestServer, id: number) {
          const reply = await server.call(`/suite-probe/${id}`, { method: 'PATCH', body: { grade: 'B' } });
          expect(reply.status, reply.text).to.equal(200);
        },
      },
    },
  });

  resourceSuite({
    application: suiteProbeApplication,
    resource: suiteRuled,
    sample: (n) => ({ code: `R-${String(n).padStart(4, '0')}`, quantity: 2 * n }),
  });

  resourceSuite({
    application: suiteProbeApplication,
    resource: suiteOrder,
    scopes: {
      prefixed: {
        attributes: { prefix: 'Q' },
        async enter(server: TestServer, id: number) {
          const reply = await server.call(`/suite-order/${id}`, { method: 'PATCH', body: { reference: `Q${id}` } });
          expect(reply.status, reply.text).to.equal(200);
        },
      },
    },
  });
});
