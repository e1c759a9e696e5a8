import { type TextsOf, addLanguage } from 'restlayer';
import type { SALES_ORDER_MESSAGES } from './messages.js';

/** The German texts of the sales order service's codes (the compiler refuses a code without one) and of its nouns. */
const TEXTS_DE: TextsOf<typeof SALES_ORDER_MESSAGES> = {
  SalesOrder_InvalidStatus: ({ value }) => `Der Status ${value} ist kein gültiger Status eines Verkaufsauftrags.`,
  SalesOrder_DateBeforeOrder: ({ name, orderDate }) => `${name} darf nicht vor dem Auftragsdatum (${orderDate}) liegen.`,
  SalesOrder_InvalidProduct: ({ value }) => `Das Produkt ${value} ist kein aktives Produkt.`,
};

addLanguage('de', TEXTS_DE, {
  'Sales order': 'Verkaufsauftrag',
  'Sales order line': 'Auftragsposition',
  Customer: 'Kunde',
  'Customer line': 'Kundenposition',
});
