/**
 * One read connection of the embedded store, in a process of its own (started by SqliteReaderPool): it answers one
 * query at a time, and the pool kills it to stop a query past its time limit. A process, not a worker thread of the
 * server: better-sqlite3 has no interrupt, and Worker.terminate() waits for a running query to finish (measured: 22 s).
 * The query itself runs in a thread of this process (sqlite-reader-thread.ts), so that this main thread still hears
 * the server go away (killed, crashed) in the middle of a long query, and ends the process at once instead of leaving
 * the query running on its own.
 */
import { Worker } from 'node:worker_threads';
import type { ReaderRequest } from './sqlite-reader-pool.js';

const [path, lockWaitMs] = process.argv.slice(2);
// The thread's young generation is bounded: what it allocates (a page's rows, then their bytes) is garbage as soon as
// it is sent, and V8 would otherwise grow that generation to 48 MB under a long run of pages (a CSV export), which
// this process keeps for good (bench/export.js: a reader grew about 64 MB in an export, about 45 MB with this).
const thread = new Worker(new URL('./sqlite-reader-thread.js', import.meta.url), {
  workerData: { path, lockWaitMs: Number(lockWaitMs) }, resourceLimits: { maxYoungGenerationSizeMb: 4 },
});

// SIGKILL, not process.exit(): exiting waits for the thread, which cannot stop inside a query.
const end = () => process.kill(process.pid, 'SIGKILL');
process.on('message', (request: ReaderRequest) => thread.postMessage(request));
/**
 * A minor collection (the pool starts this process with --expose-gc). The answers' bytes are memory outside V8's heap
 * that is freed when their small JS objects are collected, and this thread makes too few objects for V8 to collect on
 * its own before tens of megabytes of them have piled up (bench/export.js: a reader grew about 45 MB in an export).
 */
const collect = (globalThis as { gc?: (options: { type: 'minor' }) => void }).gc;
const COLLECT_AFTER_BYTES = 2 * 1024 * 1024;
let passed = 0;
// The answer as the thread serialized it (sqlite-reader-thread.ts): passed on as it is.
thread.on('message', (reply: Uint8Array) => {
  process.send!(reply);
  passed += reply.byteLength;
  if (passed >= COLLECT_AFTER_BYTES && collect) {
    passed = 0;
    collect({ type: 'minor' });
  }
});
// A thread that fails ends the process: the pool answers its query and starts another.
thread.on('error', end);
// The server is gone (ended, killed or crashed): nothing is left to answer.
process.on('disconnect', end);
