// Made by `restlayer new service customer --field name:text:required:max=100:sortable:filterable --field accountNumber:text:max=15:sortable:filterable --field territoryId:lookup=sales-territory:sortable:filterable`; the code is yours to edit: nothing regenerates it.
import { type DateKeys, type OperationTable, type Output, type RestClient, criteriaToQuery } from 'restlayer/client';
import type {
  Customer_CreateInput_Data, Customer_CreateOutput, Customer_HistoryInput, Customer_HistoryOutput, Customer_ReadListInput_Criteria, Customer_ReadListOutput,
  Customer_PatchInput_Data, Customer_ReadOutput, Customer_UpdateInput_Data, Customer_UpdateOutput,
} from './customer-models.js';
import type { ICustomerService } from './customer-service.js';

/**
 * Where each operation is served, written out here so the proxy needs no route files. The compiler makes it cover
 * every method of ICustomerService, and test/client/drift.test.ts fails when a call disagrees with its route.
 */
const operations = {
  read: { verb: 'GET', path: '/customer/{_customerId}' },
  readList: { verb: 'GET', path: '/customer' },
  create: { verb: 'POST', path: '/customer' },
  update: { verb: 'PUT', path: '/customer/{_customerId}' },
  patch: { verb: 'PATCH', path: '/customer/{_customerId}' },
  delete: { verb: 'DELETE', path: '/customer/{_customerId}' },
  history: { verb: 'GET', path: '/customer/{_customerId}/history' },
} as const satisfies OperationTable<ICustomerService>;

/** The result properties that are dates; the check below fails to compile when a model gains a Date property not listed. */
const dates = ['modifiedDate'] as const satisfies readonly CustomerDate[];
type CustomerDate = DateKeys<Customer_ReadOutput> | DateKeys<Customer_ReadListOutput> | DateKeys<Customer_UpdateOutput> | DateKeys<Customer_CreateOutput>;
const everyDateListed: [Exclude<CustomerDate, (typeof dates)[number]>] extends [never] ? true : never = true;
void everyDateListed;

/** ICustomerService over HTTP: the same interface as the service on the server, for clients. */
export class CustomerProxy implements ICustomerService {
  static readonly service = 'ICustomerService';
  static readonly operations = operations;
  static readonly notExposed = [] as const;

  constructor(private readonly client: RestClient) {}

  read(customerId: number): Promise<Output<Customer_ReadOutput>> {
    return this.client.call(operations.read, { params: { _customerId: customerId }, dates });
  }

  readList(criteria: Customer_ReadListInput_Criteria): Promise<Output<Customer_ReadListOutput[]>> {
    return this.client.call(operations.readList, { query: criteriaToQuery(criteria), dates });
  }

  create(data: Customer_CreateInput_Data): Promise<Output<Customer_CreateOutput>> {
    return this.client.call(operations.create, { body: data, dates });
  }

  update(customerId: number, data: Customer_UpdateInput_Data): Promise<Output<Customer_UpdateOutput>> {
    return this.client.call(operations.update, { params: { _customerId: customerId }, body: data, dates });
  }

  patch(customerId: number, data: Customer_PatchInput_Data): Promise<Output<Customer_UpdateOutput>> {
    return this.client.call(operations.patch, { params: { _customerId: customerId }, body: data, dates });
  }

  delete(customerId: number): Promise<Output> {
    return this.client.call(operations.delete, { params: { _customerId: customerId } });
  }

  /** The customer's history, newest first; `at` is a Date. */
  history(customerId: number, page: Customer_HistoryInput = {}): Promise<Output<Customer_HistoryOutput[]>> {
    const query = new URLSearchParams(Object.entries(page).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));
    return this.client.call(operations.history, { params: { _customerId: customerId }, query, dates: ['at'] });
  }
}
