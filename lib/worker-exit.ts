/**
 * What a worker's end tells the operator, and what to check: the primary's log line is often the only trace of it
 * (a process killed by SIGBUS or SIGKILL writes nothing itself).
 */
export function workerExitHint(code: number | null, signal: string | null, served: boolean): string {
  if (signal === 'SIGBUS') {
    return 'SIGBUS: a memory-mapped file failed under the worker. With SQLite this is the database\'s -shm file (truncated, '
      + 'made unwritable or immutable, or on a disk that failed or filled up): check the files next to Storage:Sqlite:Path '
      + '(owner, mode, lsattr) and the disk (df, dmesg)';
  }
  if (signal === 'SIGKILL') return 'SIGKILL: killed from outside, often by the kernel\'s out-of-memory killer (check dmesg)';
  if (signal === 'SIGSEGV' || signal === 'SIGABRT') return `${signal}: the process crashed in native code; its last log lines and dmesg may say more`;
  if (signal) return `${signal}: ended by a signal from outside`;
  if (!served) return `exit code ${code} before serving: the worker's own log lines above say why (storage, port, configuration)`;
  return `exit code ${code}: the worker's own log lines above say why`;
}
