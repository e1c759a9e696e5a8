import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { model, text } from 'restlayer';
import { route } from '../../../services/index.js';
import { SalesOrderCreateResult } from '../../../services/sales-order/sales-order-models.js';

/** How long a held write waits for its gate at most (past the fault tests' request timeouts). */
const GATE_WAIT_MS = 120_000;

/**
 * Test-only (served by fault-cli.ts): `POST /held-write` creates a sales order for customer 11000 as `POST /sales-order`
 * does, but only once the file `gate` exists. It first logs `held write waiting` at warn with its pid, so a fault test
 * knows the request holds its Idempotency-Key and which worker runs it, and can break the store (or kill that worker)
 * before the write.
 */
export const POST = route({
  summary: 'Create a sales order once a file exists (fault tests).',
  permission: 'sales-order.create',
  body: model({ comment: text(), gate: text() }),
  result: SalesOrderCreateResult,
  async handle({ body, services, created, log }) {
    log.warn('held write waiting', { pid: process.pid, comment: body.comment });
    for (const until = Date.now() + GATE_WAIT_MS; !existsSync(body.gate) && Date.now() < until;) await sleep(20);
    const output = await services.salesOrder.create({ customerId: 11000, status: 1, onlineOrderFlag: true, comment: body.comment });
    if (output.result) created(`/sales-order/${output.result.salesOrderId}`);
    return output;
  },
});
