import { route } from '../../../services/index.js';
import { array, historyQuery } from 'restlayer';
import { CustomerHistoryEntry, CustomerKey } from '../../../services/customer/customer-models.js';

export const GET = route({
  summary: 'The customer\'s change history, newest first: when, who, the operation and each changed field\'s old and new value; paged by skip and take. A deleted customer\'s history is readable with customer.delete.',
  operation: 'ICustomerService.history',
  permission: 'customer.read',
  scopes: ['own'],
  params: CustomerKey,
  query: historyQuery,
  result: array(CustomerHistoryEntry),
  answers: [404],
  handle: ({ params, query, services }) => services.customer.history(params._customerId, query),
});
