import { type ChildProcess, spawn } from 'node:child_process';

/** What the server prints once it listens (serve.ts' announcer): its API base URL first. */
const SERVING = /restlayer is serving (http:\/\/\S+)[^\n]*\n/;

export interface DevServerOptions {
  /** The server's command: the project's built CLI and its `serve` arguments. */
  args: string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Called each time a start has reached the point of listening, with the line it printed and its API base URL. */
  onServing(line: string, url: string, startedMs: number): void;
  /** Called when the server ended without being asked to (a startup error, a crash). */
  onExit(code: number | null, signal: NodeJS.Signals | null): void;
}

/** How long a stopping server may finish its requests before it is killed: a dev loop must not wait long. */
const STOP_GRACE_MS = 3000;

/**
 * The server of the dev loop: one process at a time, restarted on demand. Its output goes to this process's output as
 * it comes, so that its log reads as under `npm start`.
 */
export class DevServer {
  private child: ChildProcess | undefined;
  private exited: Promise<void> | undefined;
  private stopping = false;

  constructor(private readonly options: DevServerOptions) {}

  get running(): boolean {
    return this.child !== undefined;
  }

  /**
   * Every later start listens on `port`: a first start on port 0 (any free port) keeps the one it got, so the URL the
   * loop printed stays right.
   */
  pinPort(port: number): void {
    const args = this.options.args.filter((arg, i, all) => arg !== '--port' && all[i - 1] !== '--port');
    this.options.args = [...args, '--port', String(port)];
  }

  start(): void {
    const { args, cwd, env } = this.options;
    const started = Date.now();
    const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'inherit'] });
    this.child = child;
    this.stopping = false;
    let seen = '';
    let announced = false;
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      process.stdout.write(chunk);
      if (announced) return;
      seen += chunk;
      const match = SERVING.exec(seen);
      if (match) {
        announced = true;
        this.options.onServing(match[0], match[1], Date.now() - started);
      }
    });
    this.exited = new Promise((resolve) => {
      child.once('close', (code, signal) => {
        if (this.child === child) this.child = undefined;
        if (!this.stopping) this.options.onExit(code, signal);
        resolve();
      });
    });
  }

  /** Stops the server (SIGTERM: it finishes its requests), killing it if it takes longer than a moment. */
  async stop(): Promise<void> {
    const child = this.child;
    if (!child) return;
    this.stopping = true;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }

  async restart(): Promise<void> {
    await this.stop();
    this.start();
  }
}
