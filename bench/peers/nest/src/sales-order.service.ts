// Reads and writes through TypeORM repositories (@InjectRepository), as Nest's database recipe does.
import { BadRequestException, ConflictException, Injectable, NotFoundException, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DataSource, Repository } from 'typeorm';
import { amountColumn, setMoneyUnits } from './column-types';
import { failed, ok } from './envelope';
import { ListSalesOrdersQuery, UpdateSalesOrderDto } from './sales-order.dto';
import { SalesOrderStatus } from './sales-order-status.entity';
import { SalesOrder } from './sales-order.entity';
import { isPostgres } from './settings';

const DAY = 86_400_000;

/** The list item, in restlayer's property order; absent (not null) when the order has no such value. */
function listItem(o: SalesOrder) {
  return {
    salesOrderId: o.salesOrderId,
    salesOrderNumber: o.salesOrderNumber,
    status: o.status,
    orderDate: o.orderDate,
    dueDate: o.dueDate,
    shipDate: o.shipDate ?? undefined,
    customerId: o.customerId,
    customerName: o.customer.name,
    territoryId: o.territoryId ?? undefined,
    salesPersonId: o.salesPersonId ?? undefined,
    totalDue: o.totalDue,
    onlineOrderFlag: o.onlineOrderFlag,
  };
}

const listColumns = ['so.salesOrderId', 'so.salesOrderNumber', 'so.status', 'so.orderDate', 'so.dueDate', 'so.shipDate', 'so.customerId',
  'so.territoryId', 'so.salesPersonId', 'so.totalDue', 'so.onlineOrderFlag', 'c.customerId', 'c.name'];

const notFound = (id: number) => new NotFoundException(failed({ code: 'Entity_NotFound', message: `Sales order with id ${id} not found.`, severity: 'Error', type: 'Data' }));

@Injectable()
export class SalesOrderService implements OnModuleInit {
  /** Active statuses, read once at start (restlayer keeps its lookups in a cache as well). */
  private activeStatuses = new Set<number>();
  /** Whether the schema has order lines (restlayer's 0007-order-lines): then an order reads with its lines and totals. */
  private withLines = false;

  constructor(
    @InjectRepository(SalesOrder) private readonly orders: Repository<SalesOrder>,
    @InjectRepository(SalesOrderStatus) private readonly statuses: Repository<SalesOrderStatus>,
    private readonly dataSource: DataSource,
  ) {}

  async onModuleInit() {
    this.activeStatuses = new Set((await this.statuses.findBy({ isActive: true })).map((s) => s.statusId));
    // The amount column as this sample stores it: SQLite integer ten-thousandths once it is money, else as it is.
    const [lines] = await this.dataSource.query(isPostgres
      ? `select count(*)::int as n from information_schema.tables where table_name = 'sales_order_detail' and table_schema = current_schema()`
      : `select count(*) as n from sqlite_master where type = 'table' and name = 'sales_order_detail'`);
    this.withLines = Number(lines?.n) > 0;
    if (!isPostgres) {
      const [column] = await this.dataSource.query(`select type from pragma_table_info('sales_order') where name = 'total_due'`);
      setMoneyUnits(/^integer$/i.test(column?.type ?? '') ? 10_000 : 1);
    }
  }

  async read(id: number) {
    // The query builder, not `findOne({ relations })`: that one sends a DISTINCT id query before the row (take 1 with a
    // join), where this is one SELECT with the join. Both are TypeORM's documented ways; this is the cheaper.
    const query = this.orders.createQueryBuilder('so').innerJoinAndSelect('so.customer', 'c').where('so.salesOrderId = :id', { id });
    // With order lines: the totals and the lines with their product's name, in the same statement, as restlayer reads them.
    if (this.withLines) {
      query.addSelect(['so.subTotal', 'so.taxAmt', 'so.freight']).leftJoinAndSelect('so.lines', 'd').leftJoin('d.product', 'p')
        .addSelect(['p.productId', 'p.name']).addOrderBy('d.salesOrderDetailId', 'ASC');
    }
    const order = await query.getOne();
    if (!order) throw notFound(id);
    return ok({
      ...listItem(order),
      purchaseOrderNumber: order.purchaseOrderNumber ?? undefined,
      accountNumber: order.accountNumber ?? undefined,
      comment: order.comment ?? undefined,
      ...(this.withLines ? {
        subTotal: order.subTotal,
        taxAmt: order.taxAmt,
        freight: order.freight,
        lines: order.lines.map((l) => ({
          salesOrderDetailId: l.salesOrderDetailId, productId: l.productId, productName: l.product.name, orderQty: l.orderQty,
          unitPrice: l.unitPrice, unitPriceDiscount: l.unitPriceDiscount, lineTotal: l.lineTotal,
        })),
      } : {}),
      revisionNumber: order.revisionNumber,
      modifiedDate: order.modifiedDate,
    });
  }

  async list(query: ListSalesOrdersQuery) {
    const direction = query.sortDirection === 'Descending' ? 'DESC' : 'ASC';
    const where = query.status != null ? { status: query.status } : {};
    // One SELECT with the join and LIMIT/OFFSET (the customer is many-to-one, so LIMIT counts orders), rather than
    // `findAndCount({ relations, take })`, which sends a DISTINCT id query over every match before the page. The id
    // breaks ties in the first sort's direction, as restlayer's lists do, so both answer the same page.
    const page = this.orders.createQueryBuilder('so').innerJoin('so.customer', 'c').select(listColumns).where(where);
    if (query.sortField && query.sortField !== 'salesOrderId') page.orderBy(`so.${query.sortField}`, direction);
    page.addOrderBy('so.salesOrderId', direction).limit(query.take ?? 100).offset(query.skip ?? 0);
    // The count joins nothing: every order has its customer.
    const [rows, totalCount] = await Promise.all([page.getMany(), query.getTotalCount ? this.orders.countBy(where) : undefined]);
    return ok(rows.map(listItem), totalCount);
  }

  async update(id: number, data: UpdateSalesOrderDto) {
    const current = await this.orders.findOne({ select: { salesOrderId: true, orderDate: true, revisionNumber: true }, where: { salesOrderId: id } });
    if (!current) throw notFound(id);
    if (!this.activeStatuses.has(data.status)) {
      throw new BadRequestException(failed({ code: 'SalesOrder_InvalidStatus', message: `Status ${data.status} is not a valid sales order status.`, severity: 'Error', type: 'Validation', property: 'status' }));
    }
    for (const name of ['dueDate', 'shipDate'] as const) {
      const d = data[name];
      if (d && d.getTime() < current.orderDate.getTime() - DAY) {
        throw new BadRequestException(failed({ code: 'SalesOrder_DateBeforeOrder', message: `${name} cannot be before the order date.`, severity: 'Error', type: 'Validation', property: name }));
      }
    }
    const sent = data.revisionNumber ?? undefined;
    if (sent != null && sent !== current.revisionNumber) throw this.concurrency(id, sent, current.revisionNumber);
    const now = new Date();
    // With order lines, PUT replaces taxAmt and freight and totalDue follows: subTotal + taxAmt + freight, in the
    // same statement (the right-hand sides read the row as it was). The amounts go in as stored (validated numbers).
    const stored = (n: number) => String(amountColumn.transformer && !Array.isArray(amountColumn.transformer) ? amountColumn.transformer.to(n) : n);
    const totals = this.withLines ? {
      taxAmt: data.taxAmt ?? 0,
      freight: data.freight ?? 0,
      totalDue: () => `sub_total + ${stored(data.taxAmt ?? 0)} + ${stored(data.freight ?? 0)}`,
    } : {};
    // The revision read is in the WHERE: of concurrent writers one wins, and the answer's revision is exact.
    const result = await this.orders.update({ salesOrderId: id, revisionNumber: current.revisionNumber }, {
      status: data.status,
      onlineOrderFlag: data.onlineOrderFlag,
      purchaseOrderNumber: data.purchaseOrderNumber ?? null,
      accountNumber: data.accountNumber ?? null,
      shipDate: data.shipDate ?? null,
      comment: data.comment ?? null,
      ...(data.dueDate ? { dueDate: data.dueDate } : {}),
      ...totals,
      revisionNumber: () => 'revision_number + 1',
      modifiedDate: now,
    });
    if (result.affected === 0) throw this.concurrency(id, sent, current.revisionNumber);
    return ok({ revisionNumber: current.revisionNumber + 1, modifiedDate: now });
  }

  private concurrency(id: number, sent: number | undefined, now: number) {
    return new ConflictException(failed({ code: 'Entity_Concurrency', message: `Sales order ${id} was changed by someone else (revision ${sent ?? 'read'}, now ${now}).`, severity: 'Error', type: 'Concurrency', property: 'revisionNumber' }));
  }
}
