import { Column, Entity, PrimaryColumn } from 'typeorm';

@Entity('customer')
export class Customer {
  @PrimaryColumn({ name: 'customer_id', type: 'integer' })
  customerId: number;

  @Column({ type: 'varchar' })
  name: string;
}
