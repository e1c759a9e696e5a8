import { AsyncResource } from 'node:async_hooks';
import { Readable } from 'node:stream';
import type { Struct } from 'superstruct';
import { isError } from '../envelope/error-message.js';
import type { Output } from '../envelope/output.js';
import { withErrorScope } from '../envelope/request-scope.js';
import type { AppContext } from '../http/context.js';
import { csvRecord } from '../http/csv.js';
import { respond } from '../http/respond.js';
import type { Route, RouteCall } from './route.js';

/**
 * A list's export as CSV (contract part 15): `Accept: text/csv` on a list route that declares `csv`. The route's own
 * operation answers it, page after page by cursor (keyset paging, each page one indexed seek), with the criteria,
 * sort, scopes and tenancy of the JSON list; every row is written to the answer as its page arrives and the page is
 * dropped, so the server holds one page at a time however many rows are exported. `skip` and `take` do not apply:
 * every matching row up to RestAPI:MaxExportRows; X-Total-Count says how many match, so a client sees a cut.
 */

/** Whether the caller prefers CSV to JSON (Accept's weights; JSON when they are equal, or without an Accept). */
export function prefersCsv(ctx: AppContext): boolean {
  return ctx.accepts('application/json', 'text/csv') === 'text/csv';
}

/** The list item's property names in their declared order: the header row, and which value goes in which column. */
export function csvColumns(result: Route['result']): string[] {
  const item = (result as Struct<unknown, Struct<unknown, Record<string, unknown>>> | undefined)?.schema;
  return item?.schema && typeof item.schema === 'object' ? Object.keys(item.schema) : [];
}

export interface ExportLimits {
  /** The rows one page reads (RestAPI:MaxRows at most). */
  pageRows: number;
  /** RestAPI:MaxExportRows. */
  maxRows: number;
}

type Page = Output<unknown> | undefined;

/**
 * Answers the export: the first page is read before anything is sent, so invalid criteria (or a cursor-less list's
 * failure) answer the usual JSON envelope; after that a failing page ends the answer short (the connection is
 * closed without the last chunk, so a client sees an incomplete transfer, never a silently shorter file).
 */
export async function answerCsv(ctx: AppContext, route: Route, call: RouteCall<unknown, unknown, unknown>, limits: ExportLimits): Promise<void> {
  const columns = csvColumns(route.result);
  // Bound to this request's scope (the caller's access, record scopes and tenancy), which the stream's later reads
  // would not be in otherwise: they run when the socket asks for more, outside the request's async context.
  const page = AsyncResource.bind((cursor: string, first: boolean): Promise<Page> => withErrorScope(async () => route.handle({
    ...call, query: { ...(call.query as object), skip: undefined, take: limits.pageRows, cursor, getTotalCount: first || undefined },
  })));
  const firstPage = await page('', true);
  if (!firstPage || firstPage.messages.some(isError) || !Array.isArray(firstPage.result)) {
    return respond(ctx, firstPage?.messages ?? []);
  }
  ctx.status = 200;
  ctx.attachment(route.csv!.filename, { fallback: false });
  ctx.type = 'text/csv; charset=utf-8';
  if (firstPage.totalCount != null) ctx.set('X-Total-Count', String(firstPage.totalCount));
  ctx.vary('Accept');
  ctx.body = Readable.from(records(firstPage, page, columns, limits.maxRows), { objectMode: false });
}

/** One page as CSV text: its rows up to `room` of them, how many that was, and the cursor of the page after it. */
function pageText(output: Output<unknown>, columns: string[], room: number): { text: string; rows: number; cursor?: string } {
  const rows = (output.result as Record<string, unknown>[]).slice(0, room);
  let text = '';
  for (const row of rows) text += csvRecord(columns.map((column) => row[column]));
  return { text, rows: rows.length, cursor: output.nextCursor };
}

/**
 * The answer's text, page after page. Only the text of a page outlives the function that makes it, so the server
 * holds one page's rows while it makes its text, not also while the socket takes it and the next page is read. This
 * alone made no measurable difference in bench/export.js: the ~60 MB a first export grew the server by came from a
 * cursor page's rows (lib/storage/list-query.ts, withoutOrderValues) and the reader pool's abort listeners.
 */
async function* records(first: Page, page: (cursor: string, first: boolean) => Promise<Page>, columns: string[], maxRows: number): AsyncGenerator<string> {
  yield csvRecord(columns);
  let written = 0;
  let next = pageText(first!, columns, maxRows);
  // The generator's frame would otherwise hold the first page (its parameter) to the end.
  first = undefined;
  for (;;) {
    written += next.rows;
    const { cursor } = next;
    if (next.text) yield next.text;
    if (written >= maxRows || !cursor) return;
    const output = await page(cursor, false);
    if (!output || output.messages.some(isError) || !Array.isArray(output.result)) {
      throw new Error(`export stopped after ${written} rows: ${output?.messages.map((m) => m.code).join(', ') ?? 'no answer'}`);
    }
    next = pageText(output, columns, maxRows - written);
  }
}
