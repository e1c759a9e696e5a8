import { defineMessages } from 'restlayer';

/**
 * The sales order service's own message codes (its lookup fields name the first two, which are given the refused id
 * as `value`; SalesOrder_UnknownCustomer is the layer's, made from the customerId reference), beside the layer's: their type, English text and meaning. Answers
 * carrying them are written in the caller's language (German texts: messages-de.ts), and the OpenAPI document lists
 * them with the layer's.
 */
export const SALES_ORDER_MESSAGES = {
  SalesOrder_InvalidStatus: {
    type: 'Validation', text: ({ value }: { value: string }) => `Status ${value} is not a valid sales order status.`,
    description: 'The status is not an active entry of lookup table sales-order-status.',
  },
  SalesOrder_DateBeforeOrder: {
    type: 'Validation', text: ({ name, orderDate }: { name: string; orderDate: string }) => `${name} cannot be before the order date (${orderDate}).`,
    description: 'A due or ship date before the order date.',
  },
  SalesOrder_InvalidProduct: {
    type: 'Validation', text: ({ value }: { value: string }) => `Product ${value} is not an active product.`,
    description: 'A new line names a product that does not exist or is inactive.',
  },
} as const;

export const { CODES: SALES_ORDER_CODES, MESSAGES: SALES_ORDER } = defineMessages(SALES_ORDER_MESSAGES);
