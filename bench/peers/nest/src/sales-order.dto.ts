// Request shapes, validated by the global ValidationPipe (class-validator, class-transformer), as Nest's docs do.
import { Expose, Transform, Type } from 'class-transformer';
import { IsBoolean, IsDate, IsIn, IsInt, IsNumber, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

export const sortable = ['salesOrderId', 'salesOrderNumber', 'status', 'orderDate', 'dueDate', 'shipDate', 'customerId', 'territoryId', 'salesPersonId', 'totalDue', 'onlineOrderFlag'] as const;
export type SortField = (typeof sortable)[number];

/** `GET /sales-order?take=50&skip=0&status=5&sort[0].fieldName=orderDate&sort[0].sortDirection=Descending&getTotalCount=true` */
export class ListSalesOrdersQuery {
  @IsOptional() @Type(() => Number) @IsInt() @Min(1) @Max(1000)
  take?: number;

  @IsOptional() @Type(() => Number) @IsInt() @Min(0)
  skip?: number;

  @IsOptional() @Type(() => Number) @IsInt()
  status?: number;

  @IsOptional() @Transform(({ value }) => value === 'true' || value === true) @IsBoolean()
  getTotalCount?: boolean;

  @IsOptional() @Expose({ name: 'sort[0].fieldName' }) @IsIn(sortable)
  sortField?: SortField;

  @IsOptional() @Expose({ name: 'sort[0].sortDirection' }) @IsIn(['Ascending', 'Descending'])
  sortDirection?: 'Ascending' | 'Descending';
}

/** The body of `PUT /sales-order/{id}`: absent optional fields are cleared (PUT replaces), as restlayer's sample does. */
export class UpdateSalesOrderDto {
  @IsInt()
  status: number;

  @IsBoolean()
  onlineOrderFlag: boolean;

  @IsOptional() @IsString() @MaxLength(25)
  purchaseOrderNumber?: string | null;

  @IsOptional() @IsString() @MaxLength(15)
  accountNumber?: string | null;

  @IsOptional() @Type(() => Date) @IsDate()
  shipDate?: Date | null;

  @IsOptional() @Type(() => Date) @IsDate()
  dueDate?: Date | null;

  @IsOptional() @IsString() @MaxLength(128)
  comment?: string | null;

  @IsOptional() @IsInt() @Min(1)
  revisionNumber?: number | null;

  // The order-lines schema's amounts (absent: 0, as restlayer's PUT replaces them); ignored on the schema before it.
  @IsOptional() @IsNumber({ maxDecimalPlaces: 4 }) @Min(0) @Max(99_999_999_999)
  taxAmt?: number | null;

  @IsOptional() @IsNumber({ maxDecimalPlaces: 4 }) @Min(0) @Max(99_999_999_999)
  freight?: number | null;
}
