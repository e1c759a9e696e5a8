import { defineMessages } from 'restlayer';

/**
 * The sales order service's own message codes, beside the layer's: their type, English text and meaning. Answers
 * carrying them are written in the caller's language (German texts: messages-de.ts), and the OpenAPI document lists
 * them with the layer's.
 */
export const SALES_ORDER_MESSAGES = {
  SalesOrder_InvalidStatus: {
    type: 'Validation', text: ({ statusId }: { statusId: number }) => `Status ${statusId} is not a valid sales order status.`,
    description: 'The status is not an active entry of lookup table sales-order-status.',
  },
  SalesOrder_DateBeforeOrder: {
    type: 'Validation', text: ({ name, orderDate }: { name: string; orderDate: string }) => `${name} cannot be before the order date (${orderDate}).`,
    description: 'A due or ship date before the order date.',
  },
  SalesOrder_UnknownCustomer: {
    type: 'Validation', text: ({ customerId }: { customerId: number }) => `Customer with id ${customerId} not found.`,
    description: 'The order\'s customer does not exist (or is outside the caller\'s reach).',
  },
  SalesOrder_InvalidProduct: {
    type: 'Validation', text: ({ productId }: { productId: number }) => `Product ${productId} is not an active product.`,
    description: 'A new line names a product that does not exist or is inactive.',
  },
} as const;

export const { MESSAGES: SALES_ORDER } = defineMessages(SALES_ORDER_MESSAGES);
