// Made by `restlayer new service customer --field name:text:required:max=100:sortable:filterable --field accountNumber:text:max=15:sortable:filterable --field territoryId:lookup=sales-territory:sortable:filterable`; the code is yours to edit: nothing regenerates it.
import type { RestClient } from 'restlayer/client';
import { CustomerProxy } from '../../services/customer/customer-proxy.js';
import { type ProxyUnderTest, methodsOf } from '../client/drift.js';

/** The customer proxy and a valid call of each of its methods, for test/client/drift.test.ts. */
export function driftProxy(client: RestClient): ProxyUnderTest {
  const proxy = new CustomerProxy(client);
  const data = {
    name: 'T0001',
    accountNumber: 'T0001',
    territoryId: 1,
  };
  return {
    description: CustomerProxy,
    methods: methodsOf(proxy),
    samples: {
      read: () => proxy.read(1),
      readList: () => proxy.readList({
        name: { operator: 'CN', values: ['50% off_'] },
        accountNumber: { operator: 'CN', values: ['50% off_'] },
        territoryId: { operator: 'In', values: [1, 5] },
        skip: 10, take: 5, getTotalCount: true,
        sort: [{ fieldName: 'name', sortDirection: 'Descending' }],
      }),
      create: () => proxy.create(data),
      update: () => proxy.update(1, { ...data, revisionNumber: 3 }),
      patch: () => proxy.patch(1, { accountNumber: null, revisionNumber: 3 }),
      delete: () => proxy.delete(1),
      history: () => proxy.history(1, { skip: 2, take: 5 }),
      restore: () => proxy.restore!(1),
    },
  };
}
