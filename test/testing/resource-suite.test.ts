import { expect } from 'chai';
import { type TestServer, resourceSuite } from 'restlayer/testing';
import { describeStores } from '../support/stores.js';
import { suiteProbeApplication } from './suite-probe/suite-probe-module.js';
import { suiteOrder, suiteProbe, suiteRuled } from './suite-probe/suite-probe.js';

/** A scope's `enter` that PATCHes the record into the scope (as the administrator). */
const patching = (resource: string, body: (id: number) => object) => async (server: TestServer, id: number) => {
  const reply = await server.call(`/${resource}/${id}`, { method: 'PATCH', body: body(id) });
  expect(reply.status, reply.text).to.equal(200);
};

/**
 * resourceSuite over declarations that hold every kind of input field (text, integer, decimal, money, date, boolean,
 * a lookup of text ids, a reference), a read-through, a derived amount, a default, a create-only field and a scope,
 * with values it generates from the field types; over a resource whose rule refuses those values, with the team's
 * `sample`: the suite then sends no valid value of its own making (a rule's 400 would fail it); and over a header with
 * lines, their total and a scope.
 */
describeStores('resourceSuite', () => {
  resourceSuite({
    application: suiteProbeApplication,
    resource: suiteProbe,
    scopes: { graded: { attributes: { grade: 'B' }, enter: patching('suite-probe', () => ({ grade: 'B' })) } },
  });

  resourceSuite({
    application: suiteProbeApplication,
    resource: suiteRuled,
    sample: (n) => ({ code: `R-${String(n).padStart(4, '0')}`, quantity: 2 * n }),
  });

  const prefixed = { attributes: { prefix: 'Q' }, enter: patching('suite-order', (id) => ({ reference: `Q${id}` })) };
  resourceSuite({ application: suiteProbeApplication, resource: suiteOrder, scopes: { prefixed } });

  // The team's sample with its lines: the child tests take the sample's lines instead of generated ones.
  resourceSuite({
    application: suiteProbeApplication,
    resource: suiteOrder,
    sample: (n) => ({ reference: `S${n}`, lines: [{ description: `line ${n}`, quantity: n + 1, unitPrice: 1.5 }, { description: 'fee', quantity: 1, unitPrice: 0.1 }] }),
    scopes: { prefixed },
  });
});
