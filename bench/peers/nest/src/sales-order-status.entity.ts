import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('sales_order_status')
export class SalesOrderStatus {
  @PrimaryColumn({ name: 'status_id', type: 'integer' })
  statusId: number;

  @Column({ type: 'varchar' })
  name: string;

  @Column({ name: 'is_active', type: 'boolean' })
  isActive: boolean;
}
