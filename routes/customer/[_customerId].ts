// Made by `restlayer new service customer --field name:text:required:max=100:sortable:filterable --field accountNumber:text:max=15:sortable:filterable --field territoryId:lookup=sales-territory:sortable:filterable`; the code is yours to edit: nothing regenerates it.
import { route } from '../../services/index.js';
import {
  CustomerKey, CustomerPatchData, CustomerRead, CustomerUpdateData, CustomerUpdateResult,
} from '../../services/customer/customer-models.js';

export const GET = route({
  summary: 'Read one customer.',
  permission: 'customer.read',
  scopes: ['own'],
  operation: 'ICustomerService.read',
  params: CustomerKey,
  result: CustomerRead,
  answers: [404],
  handle: ({ params, services }) => services.customer.read(params._customerId),
});

export const PUT = route({
  summary: 'Update a customer; a stale revisionNumber is a 409.',
  permission: 'customer.update',
  scopes: ['own'],
  operation: 'ICustomerService.update',
  params: CustomerKey,
  body: CustomerUpdateData,
  result: CustomerUpdateResult,
  answers: [404, 409],
  handle: ({ params, body, services }) => services.customer.update(params._customerId, body),
});

export const PATCH = route({
  summary: 'Change only the fields the body names (JSON merge patch; null clears an optional field); a stale revisionNumber is a 409.',
  permission: 'customer.update',
  scopes: ['own'],
  operation: 'ICustomerService.patch',
  params: CustomerKey,
  body: CustomerPatchData,
  result: CustomerUpdateResult,
  answers: [404, 409],
  handle: ({ params, body, services }) => services.customer.patch(params._customerId, body),
});

export const DELETE = route({
  summary: 'Delete a customer.',
  permission: 'customer.delete',
  scopes: ['own'],
  operation: 'ICustomerService.delete',
  params: CustomerKey,
  // 409 Entity_InUse while orders still reference the customer.
  answers: [404, 409],
  handle: ({ params, services }) => services.customer.delete(params._customerId),
});
