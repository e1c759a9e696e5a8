// The sales_order table of restlayer's sample, mapped as TypeORM's docs do it (an entity class, a ManyToOne for the
// customer). The schema is restlayer's: TypeORM never synchronises it.
import { Column, Entity, JoinColumn, ManyToOne, OneToMany, PrimaryGeneratedColumn } from 'typeorm';
import { amountColumn, dateColumn } from './column-types';
import { Customer } from './customer.entity';
import { SalesOrderDetail } from './sales-order-detail.entity';

@Entity('sales_order')
export class SalesOrder {
  @PrimaryGeneratedColumn({ name: 'sales_order_id' })
  salesOrderId: number;

  @Column({ name: 'sales_order_number', type: 'varchar' })
  salesOrderNumber: string;

  @Column({ type: 'integer' })
  status: number;

  @Column({ name: 'order_date', ...dateColumn })
  orderDate: Date;

  @Column({ name: 'due_date', ...dateColumn })
  dueDate: Date;

  @Column({ name: 'ship_date', nullable: true, ...dateColumn })
  shipDate: Date | null;

  @Column({ name: 'customer_id', type: 'integer' })
  customerId: number;

  @ManyToOne(() => Customer)
  @JoinColumn({ name: 'customer_id' })
  customer: Customer;

  @Column({ name: 'territory_id', type: 'integer', nullable: true })
  territoryId: number | null;

  @Column({ name: 'sales_person_id', type: 'integer', nullable: true })
  salesPersonId: number | null;

  @Column({ name: 'total_due', ...amountColumn })
  totalDue: number;

  // The order-lines schema's amounts: not selected unless asked for, so the peer also runs on the schema before it.
  @Column({ name: 'sub_total', select: false, ...amountColumn })
  subTotal: number;

  @Column({ name: 'tax_amt', select: false, ...amountColumn })
  taxAmt: number;

  @Column({ name: 'freight', select: false, ...amountColumn })
  freight: number;

  @OneToMany(() => SalesOrderDetail, (line) => line.order)
  lines: SalesOrderDetail[];

  @Column({ name: 'online_order_flag', type: 'boolean' })
  onlineOrderFlag: boolean;

  @Column({ name: 'purchase_order_number', type: 'varchar', nullable: true })
  purchaseOrderNumber: string | null;

  @Column({ name: 'account_number', type: 'varchar', nullable: true })
  accountNumber: string | null;

  @Column({ type: 'varchar', nullable: true })
  comment: string | null;

  @Column({ name: 'revision_number', type: 'integer' })
  revisionNumber: number;

  @Column({ name: 'modified_date', ...dateColumn })
  modifiedDate: Date;
}
