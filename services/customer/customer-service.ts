// Made by `restlayer new service customer --field name:text:required:max=100:sortable:filterable --field accountNumber:text:max=15:sortable:filterable --field territoryId:lookup=sales-territory:sortable:filterable`; the code is yours to edit: nothing regenerates it.
import type { Output } from 'restlayer';
import type {
  Customer_CreateInput_Data, Customer_CreateOutput, Customer_HistoryInput, Customer_HistoryOutput, Customer_ReadListInput_Criteria, Customer_ReadListOutput,
  Customer_PatchInput_Data, Customer_ReadOutput, Customer_UpdateInput_Data, Customer_UpdateOutput,
} from './customer-models.js';

/** Customer records: read, list, create, update, patch, delete. It knows nothing of HTTP; problems go to the current ErrorList. */
export interface ICustomerService {
  read(customerId: number): Promise<Output<Customer_ReadOutput>>;
  readList(criteria: Customer_ReadListInput_Criteria): Promise<Output<Customer_ReadListOutput[]>>;
  create(data: Customer_CreateInput_Data): Promise<Output<Customer_CreateOutput>>;
  update(customerId: number, data: Customer_UpdateInput_Data): Promise<Output<Customer_UpdateOutput>>;
  /** Changes only the fields `data` names (JSON merge patch); answers what update answers. */
  patch(customerId: number, data: Customer_PatchInput_Data): Promise<Output<Customer_UpdateOutput>>;
  delete(customerId: number): Promise<Output>;
  /** The customer's change history, newest first; a deleted customer's stays readable by holders of customer.delete. */
  history(customerId: number, page?: Customer_HistoryInput): Promise<Output<Customer_HistoryOutput[]>>;
}
