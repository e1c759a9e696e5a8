// The lookup workload every peer serves: a table fetched from restlayer at start, answered from memory.
import { Controller, Get, NotFoundException, Param } from '@nestjs/common';
import { failed } from './envelope';
import { settings } from './settings';

@Controller('lookup-table')
export class LookupController {
  @Get(':type')
  read(@Param('type') type: string) {
    const table = settings.payloads.get(type);
    if (!table) throw new NotFoundException(failed({ code: 'Route_NotFound', message: 'Not found.', severity: 'Error', type: 'Data' }));
    return table;
  }
}
