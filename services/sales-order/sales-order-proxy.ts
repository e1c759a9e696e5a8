import {
  type DateKeys, type OperationTable, type Output, type RestClient, criteriaToQuery, notExposed,
} from 'restlayer/client';
import type {
  SalesOrderDetail_CreateInput_Data, SalesOrderDetail_PatchInput_Data, SalesOrderDetail_ReadOutput,
  SalesOrderDetail_UpdateInput_Data, SalesOrderDetail_WriteOutput, SalesOrder_CreateInput_Data, SalesOrder_CreateOutput,
  SalesOrder_HistoryInput, SalesOrder_HistoryOutput, SalesOrder_ReadListInput_Criteria, SalesOrder_ReadListOutput,
  SalesOrder_PatchInput_Data, SalesOrder_ReadOutput, SalesOrder_UpdateInput_Data, SalesOrder_UpdateOutput,
} from './sales-order-models.js';
import type { ISalesOrderService } from './sales-order-service.js';

/**
 * Where each operation is served. No drift: the table is written out here (so the proxy needs no route files or
 * node:fs and works in a browser bundle), the compiler makes it cover every method of ISalesOrderService that is
 * not listed in `notExposed`, and test/client/drift.test.ts records every proxy call and fails when its verb, path,
 * query, body or anonymity disagrees with the route whose `operation` names it, or when a route exposes an
 * operation that no proxy method sends.
 */
const operations = {
  read: { verb: 'GET', path: '/sales-order/{_salesOrderId}' },
  readList: { verb: 'GET', path: '/sales-order' },
  create: { verb: 'POST', path: '/sales-order' },
  update: { verb: 'PUT', path: '/sales-order/{_salesOrderId}' },
  patch: { verb: 'PATCH', path: '/sales-order/{_salesOrderId}' },
  delete: { verb: 'DELETE', path: '/sales-order/{_salesOrderId}' },
  history: { verb: 'GET', path: '/sales-order/{_salesOrderId}/history' },
  readLines: { verb: 'GET', path: '/sales-order/{_salesOrderId}/detail' },
  readLine: { verb: 'GET', path: '/sales-order/{_salesOrderId}/detail/{_salesOrderDetailId}' },
  createLine: { verb: 'POST', path: '/sales-order/{_salesOrderId}/detail' },
  updateLine: { verb: 'PUT', path: '/sales-order/{_salesOrderId}/detail/{_salesOrderDetailId}' },
  patchLine: { verb: 'PATCH', path: '/sales-order/{_salesOrderId}/detail/{_salesOrderDetailId}' },
  deleteLine: { verb: 'DELETE', path: '/sales-order/{_salesOrderId}/detail/{_salesOrderDetailId}' },
} as const satisfies OperationTable<ISalesOrderService, 'purgeCancelled'>;

/** The result properties that are dates; the check below fails to compile when a model gains a Date property not listed. */
const dates = ['orderDate', 'dueDate', 'shipDate', 'modifiedDate'] as const satisfies readonly SalesOrderDate[];
type SalesOrderDate = DateKeys<SalesOrder_ReadOutput> | DateKeys<SalesOrder_ReadListOutput> | DateKeys<SalesOrder_UpdateOutput> | DateKeys<SalesOrder_CreateOutput>;
const everyDateListed: [Exclude<SalesOrderDate, (typeof dates)[number]>] extends [never] ? true : never = true;
void everyDateListed;

/** ISalesOrderService over HTTP: the same interface as the service on the server, for clients. */
export class SalesOrderProxy implements ISalesOrderService {
  static readonly service = 'ISalesOrderService';
  static readonly operations = operations;
  static readonly notExposed = ['purgeCancelled'] as const;

  constructor(private readonly client: RestClient) {}

  read(salesOrderId: number): Promise<Output<SalesOrder_ReadOutput>> {
    return this.client.call(operations.read, { params: { _salesOrderId: salesOrderId }, dates });
  }

  readList(criteria: SalesOrder_ReadListInput_Criteria): Promise<Output<SalesOrder_ReadListOutput[]>> {
    return this.client.call(operations.readList, { query: criteriaToQuery(criteria), dates });
  }

  create(data: SalesOrder_CreateInput_Data): Promise<Output<SalesOrder_CreateOutput>> {
    return this.client.call(operations.create, { body: data, dates });
  }

  update(salesOrderId: number, data: SalesOrder_UpdateInput_Data): Promise<Output<SalesOrder_UpdateOutput>> {
    return this.client.call(operations.update, { params: { _salesOrderId: salesOrderId }, body: data, dates });
  }

  patch(salesOrderId: number, data: SalesOrder_PatchInput_Data): Promise<Output<SalesOrder_UpdateOutput>> {
    return this.client.call(operations.patch, { params: { _salesOrderId: salesOrderId }, body: data, dates });
  }

  delete(salesOrderId: number): Promise<Output> {
    return this.client.call(operations.delete, { params: { _salesOrderId: salesOrderId } });
  }

  /** The order's history, newest first; `at` is a Date. */
  history(salesOrderId: number, page: SalesOrder_HistoryInput = {}): Promise<Output<SalesOrder_HistoryOutput[]>> {
    return this.client.call(operations.history, { params: { _salesOrderId: salesOrderId }, query: pageQuery(page), dates: ['at'] });
  }

  // Order lines: every write answers the order's new totals and revision (SalesOrderDetail_WriteOutput); a write that
  // carries the order's revisionNumber and finds a newer one is an Output with Entity_Concurrency (409).

  readLines(salesOrderId: number): Promise<Output<SalesOrderDetail_ReadOutput[]>> {
    return this.client.call(operations.readLines, { params: { _salesOrderId: salesOrderId } });
  }

  readLine(salesOrderId: number, salesOrderDetailId: number): Promise<Output<SalesOrderDetail_ReadOutput>> {
    return this.client.call(operations.readLine, { params: line(salesOrderId, salesOrderDetailId) });
  }

  createLine(salesOrderId: number, data: SalesOrderDetail_CreateInput_Data): Promise<Output<SalesOrderDetail_WriteOutput>> {
    return this.client.call(operations.createLine, { params: { _salesOrderId: salesOrderId }, body: data });
  }

  updateLine(salesOrderId: number, salesOrderDetailId: number, data: SalesOrderDetail_UpdateInput_Data): Promise<Output<SalesOrderDetail_WriteOutput>> {
    return this.client.call(operations.updateLine, { params: line(salesOrderId, salesOrderDetailId), body: data });
  }

  patchLine(salesOrderId: number, salesOrderDetailId: number, data: SalesOrderDetail_PatchInput_Data): Promise<Output<SalesOrderDetail_WriteOutput>> {
    return this.client.call(operations.patchLine, { params: line(salesOrderId, salesOrderDetailId), body: data });
  }

  /** DELETE has no body: the order's revision, when given, goes as the query parameter `revisionNumber`. */
  deleteLine(salesOrderId: number, salesOrderDetailId: number, revisionNumber?: number): Promise<Output<SalesOrderDetail_WriteOutput>> {
    const query = revisionNumber === undefined ? undefined : new URLSearchParams({ revisionNumber: String(revisionNumber) });
    return this.client.call(operations.deleteLine, { params: line(salesOrderId, salesOrderDetailId), query });
  }

  /** Not exposed via REST: rejects with OperationNotSupportedError. */
  purgeCancelled(_orderedBefore: Date): Promise<Output<number>> {
    return notExposed('ISalesOrderService.purgeCancelled');
  }
}

/** The route parameters of one line of one order. */
const line = (salesOrderId: number, salesOrderDetailId: number) => ({ _salesOrderId: salesOrderId, _salesOrderDetailId: salesOrderDetailId });

/** A history page as its query string: `skip` and `take`, those given. */
function pageQuery(page: SalesOrder_HistoryInput): URLSearchParams {
  return new URLSearchParams(Object.entries(page).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));
}
