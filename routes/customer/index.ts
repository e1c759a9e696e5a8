// Made by `restlayer new service customer --field name:text:required:max=100:sortable:filterable --field accountNumber:text:max=15:sortable:filterable --field territoryId:lookup=sales-territory:sortable:filterable`; the code is yours to edit: nothing regenerates it.
import { array } from 'restlayer';
import { route } from '../../services/index.js';
import {
  CustomerCreateData, CustomerCreateResult, CustomerListItem, customerCriteria,
} from '../../services/customer/customer-models.js';

export const GET = route({
  summary: 'List customer records matching the criteria.',
  permission: 'customer.read',
  scopes: ['own'],
  operation: 'ICustomerService.readList',
  query: customerCriteria,
  result: array(CustomerListItem),
  handle: ({ query, services }) => services.customer.readList(query),
});

export const POST = route({
  summary: 'Create a customer.',
  permission: 'customer.create',
  scopes: ['own'],
  operation: 'ICustomerService.create',
  body: CustomerCreateData,
  result: CustomerCreateResult,
  async handle({ body, services, created }) {
    const output = await services.customer.create(body);
    if (output.result) created(`/customer/${output.result.customerId}`);
    return output;
  },
});
