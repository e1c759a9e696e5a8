// An order line (the `lines` schema, 0007-order-lines on). Mapped always, read only when the table exists.
import { Column, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { amountColumn } from './column-types';
import { Product } from './product.entity';
import { SalesOrder } from './sales-order.entity';

@Entity('sales_order_detail')
export class SalesOrderDetail {
  @PrimaryGeneratedColumn({ name: 'sales_order_detail_id' })
  salesOrderDetailId: number;

  @ManyToOne(() => SalesOrder, (order) => order.lines)
  @JoinColumn({ name: 'sales_order_id' })
  order: SalesOrder;

  @Column({ name: 'product_id', type: 'integer' })
  productId: number;

  @ManyToOne(() => Product)
  @JoinColumn({ name: 'product_id' })
  product: Product;

  @Column({ name: 'order_qty', type: 'integer' })
  orderQty: number;

  @Column({ name: 'unit_price', ...amountColumn })
  unitPrice: number;

  @Column({ name: 'unit_price_discount', ...amountColumn })
  unitPriceDiscount: number;

  @Column({ name: 'line_total', ...amountColumn })
  lineTotal: number;
}
