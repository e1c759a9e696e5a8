import { Body, Controller, Get, Param, ParseIntPipe, Put, Query } from '@nestjs/common';
import { ListSalesOrdersQuery, UpdateSalesOrderDto } from './sales-order.dto';
import { SalesOrderService } from './sales-order.service';

@Controller('sales-order')
export class SalesOrderController {
  constructor(private readonly salesOrders: SalesOrderService) {}

  @Get()
  list(@Query() query: ListSalesOrdersQuery) {
    return this.salesOrders.list(query);
  }

  @Get(':id')
  read(@Param('id', ParseIntPipe) id: number) {
    return this.salesOrders.read(id);
  }

  @Put(':id')
  update(@Param('id', ParseIntPipe) id: number, @Body() data: UpdateSalesOrderDto) {
    return this.salesOrders.update(id, data);
  }
}
