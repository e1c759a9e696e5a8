// The sample's routes, served beside the fault tests' own (fault-cli.ts).
export * from '../../../../routes/sales-order/[_salesOrderId].js';
