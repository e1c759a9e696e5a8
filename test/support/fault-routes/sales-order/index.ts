// The sample's routes, served beside the fault tests' own (fault-cli.ts).
export { GET, POST } from '../../../../routes/sales-order/index.js';
