import { Column, Entity, PrimaryColumn } from 'typeorm';

/** The product of an order line (the `lines` schema, 0007-order-lines on). */
@Entity('product')
export class Product {
  @PrimaryColumn({ name: 'product_id', type: 'integer' })
  productId: number;

  @Column({ type: 'varchar' })
  name: string;
}
