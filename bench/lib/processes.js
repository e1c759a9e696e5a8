// Server processes: spawned (optionally pinned to a CPU with taskset), waited for until they print their URL,
// watched through /proc (RSS, CPU time) and stopped with SIGTERM (SIGKILL after a grace period).
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';

const running = new Set();

let tasksetOk;
/** Whether `taskset` exists and may set affinities here (containers sometimes forbid it). */
export function canPin() {
  if (tasksetOk === undefined) {
    try {
      execFileSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' });
      tasksetOk = true;
    } catch {
      tasksetOk = false;
    }
  }
  return tasksetOk;
}

/** Pins every thread of this process (and so the threads and children it starts later) to `cpus` ("0", "0,1"). */
export function pinSelf(cpus) {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(process.pid)], { stdio: 'ignore' });
}

/**
 * Starts `node ...nodeArgs` and resolves once its stdout matches `ready` (the first group is the URL).
 * With `cpus`, the process runs under `taskset -c cpus` (taskset execs node, so the pid is node's).
 * With `stderrFile`, the process writes its stderr (restlayer's request log) straight to that file, as a server
 * writes its log in production, rather than through a pipe the runner would spend CPU draining.
 */
export function startProcess({ name, nodeArgs, env, cwd, cpus, ready, stderrFile, timeoutMs = 60_000 }) {
  const command = cpus ? 'taskset' : process.execPath;
  const args = cpus ? ['-c', cpus, process.execPath, ...nodeArgs] : nodeArgs;
  const stderrFd = stderrFile ? openSync(stderrFile, 'a') : 'pipe';
  const child = spawn(command, args, { env, cwd, stdio: ['ignore', 'pipe', stderrFd] });
  if (stderrFile) closeSync(stderrFd);
  running.add(child);
  let stdout = '';
  let piped = '';
  // The log may be gone already (the run's folder removed after a failure elsewhere): the error then says so.
  const stderr = () => (stderrFile ? (existsSync(stderrFile) ? readFileSync(stderrFile, 'utf8') : `(${stderrFile} removed)`) : piped).slice(-20_000);
  const exited = new Promise((resolve) => child.once('close', (code, signal) => {
    running.delete(child);
    resolve({ code, signal });
  }));
  child.stderr?.setEncoding('utf8').on('data', (chunk) => {
    // Keep the tail only: a server under load may log, and the runner must not grow with it.
    piped = (piped + chunk).slice(-20_000);
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(new Error(`${name} did not start within ${timeoutMs} ms`)), timeoutMs);
    const fail = (err) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`${err.message}\n--- ${name} stderr ---\n${stderr()}`));
    };
    exited.then((exit) => fail(new Error(`${name} ended before it was ready (${JSON.stringify(exit)})`)));
    child.stdout.setEncoding('utf8').on('data', function onData(chunk) {
      stdout += chunk;
      const match = ready.exec(stdout);
      if (!match) return;
      child.stdout.off('data', onData);
      child.stdout.resume();
      clearTimeout(timer);
      resolve({
        name,
        pid: child.pid,
        url: match[1],
        exited,
        stderr,
        stop: (graceMs = 10_000) => stopChild(child, exited, graceMs),
      });
    });
  });
}

async function stopChild(child, exited, graceMs) {
  if (child.exitCode === null && child.signalCode === null) {
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
    await exited;
    clearTimeout(timer);
  }
  return exited;
}

/** Kills (SIGKILL) whatever this runner started and is still running: for failures and Ctrl-C. */
export function killAll() {
  for (const child of running) child.kill('SIGKILL');
}

const kb = (status, field) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);

/** Resident set size now and its peak (VmHWM), in bytes; zeros when the process is gone. */
export function memoryOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return { rss: kb(status, 'VmRSS') * 1024, hwm: kb(status, 'VmHWM') * 1024 };
  } catch {
    return { rss: 0, hwm: 0 };
  }
}

/** Resets the process's VmHWM to its current RSS (Linux clear_refs "5"), so a peak can be measured per run. */
export function resetPeak(pid) {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/** CPU time (user + system, all threads) used so far by the process, in clock ticks (1/100 s on Linux). */
export function cpuTicks(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return 0;
  }
}

/** The process and every descendant (restlayer's SQLite read workers are child processes), pid first. */
export function processTree(pid) {
  const pids = [pid];
  for (let i = 0; i < pids.length; i++) {
    let tasks = [];
    try {
      tasks = readdirSync(`/proc/${pids[i]}/task`);
    } catch {
      continue;
    }
    for (const task of tasks) {
      try {
        const children = readFileSync(`/proc/${pids[i]}/task/${task}/children`, 'utf8').trim();
        if (children) pids.push(...children.split(/\s+/).map(Number));
      } catch {
        // The task ended meanwhile.
      }
    }
  }
  return pids;
}

/**
 * CPU time of a server: its own and its live descendants' (a server whose queries run in child processes must not
 * look cheaper than one that runs them itself), in clock ticks.
 */
export function treeCpuTicks(pid) {
  return processTree(pid).reduce((sum, p) => sum + cpuTicks(p), 0);
}

/** Resident set size of the process and its descendants now, in bytes. */
export function treeRss(pid) {
  return processTree(pid).reduce((sum, p) => sum + memoryOf(p).rss, 0);
}

/** Busy CPU time of the whole machine (all CPUs, idle and iowait excluded), in clock ticks. */
export function machineBusyTicks() {
  try {
    const [, ...fields] = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0].trim().split(/\s+/);
    const [user, nice, system, , , irq, softirq, steal] = fields.map(Number);
    return user + nice + system + irq + softirq + steal;
  } catch {
    return 0;
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Waits until the process is idle (under ~4% of a CPU over 500 ms), e.g. while it still works through requests
 * that the load generator abandoned when its run ended (logins queued behind scrypt). Returns the time waited.
 */
export async function waitIdle(pid, maxMs = 60_000) {
  const start = Date.now();
  let before = treeCpuTicks(pid);
  while (Date.now() - start < maxMs) {
    await sleep(500);
    const now = treeCpuTicks(pid);
    if (now - before <= 2) break;
    before = now;
  }
  return Date.now() - start;
}
