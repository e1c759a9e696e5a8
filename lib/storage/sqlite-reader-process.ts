/**
 * One read connection of the embedded store, in a process of its own (started by SqliteReaderPool): it answers one
 * query at a time, and the pool kills it to stop a query past its time limit. A process, not a worker thread of the
 * server: better-sqlite3 has no interrupt, and Worker.terminate() waits for a running query to finish (measured: 22 s).
 * The query itself runs in a thread of this process (sqlite-reader-thread.ts), so that this main thread still hears
 * the server go away (killed, crashed) in the middle of a long query, and ends the process at once instead of leaving
 * the query running on its own.
 */
import { Worker } from 'node:worker_threads';
import type { ReaderReply, ReaderRequest } from './sqlite-reader-pool.js';

const [path, lockWaitMs] = process.argv.slice(2);
const thread = new Worker(new URL('./sqlite-reader-thread.js', import.meta.url), { workerData: { path, lockWaitMs: Number(lockWaitMs) } });

// SIGKILL, not process.exit(): exiting waits for the thread, which cannot stop inside a query.
const end = () => process.kill(process.pid, 'SIGKILL');
process.on('message', (request: ReaderRequest) => thread.postMessage(request));
thread.on('message', (reply: ReaderReply) => process.send!(reply));
// A thread that fails ends the process: the pool answers its query and starts another.
thread.on('error', end);
// The server is gone (ended, killed or crashed): nothing is left to answer.
process.on('disconnect', end);
