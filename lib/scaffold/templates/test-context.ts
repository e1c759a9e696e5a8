/** What the parts of the generated test file share: how they write a record of the data set, and a name no field has. */
export interface TestContext {
  /** `rowData(n)` (with the lookup ids when the service has lookup fields). */
  data(n: number | string): string;
  /** A PATCH body changing the first field to row `n`'s value. */
  patchOf(n: number | string): string;
  /** A property name no field has. */
  unknown: string;
  /** What a read of a record created without children has besides its fields (`, lines: [], amountTotal: 0`), or ''. */
  extras: string;
  /** `, ids` when the data helpers take the lookup ids. */
  args: string;
}
