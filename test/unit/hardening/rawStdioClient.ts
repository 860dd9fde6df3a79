/**
 * A raw newline-delimited JSON-RPC client for a child process: counts every line it receives, can
 * stop reading (a client that stalls), and writes large payloads respecting backpressure.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';

export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');
export const HARNESS = path.join(REPO_ROOT, 'test', 'unit', 'hardening', 'stdioHarness.ts');

export interface Reply {
  jsonrpc?: string;
  id?: unknown;
  result?: { content?: Array<{ type: string; text?: string }> } & Record<string, unknown>;
  error?: { code: number; message: string };
  method?: string;
}

export class RawStdioClient {
  readonly child: ChildProcessWithoutNullStreams;
  readonly replies: Reply[] = [];
  readonly unparsable: string[] = [];
  stderr = '';
  receivedBytes = 0;
  private buffered = '';
  private waiters = new Map<string, (r: Reply) => void>();
  private exited: Promise<number | null>;

  constructor(args: string[] = ['--expose-gc', '--import', 'tsx', HARNESS]) {
    this.child = spawn(process.execPath, args, { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.on('data', (d: Buffer) => this.onData(d));
    this.child.stderr.on('data', (d: Buffer) => {
      if (this.stderr.length < 1 << 20) this.stderr += d.toString('utf8');
    });
    this.child.stdin.on('error', () => undefined); // the child may close first in failure cases
    this.exited = new Promise((r) => this.child.once('exit', (code) => r(code)));
  }

  private onData(d: Buffer): void {
    this.receivedBytes += d.length;
    this.buffered += d.toString('utf8');
    let nl: number;
    while ((nl = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, nl);
      this.buffered = this.buffered.slice(nl + 1);
      let r: Reply;
      try {
        r = JSON.parse(line) as Reply;
      } catch {
        this.unparsable.push(line.slice(0, 200));
        continue;
      }
      this.replies.push(r);
      const w = this.waiters.get(JSON.stringify(r.id ?? null));
      if (w && (r.result !== undefined || r.error !== undefined)) {
        this.waiters.delete(JSON.stringify(r.id ?? null));
        w(r);
      }
    }
  }

  /** Stop reading stdout: the child's writes pile up in the pipe and then in its own memory. */
  stopReading(): void {
    this.child.stdout.pause();
  }
  resumeReading(): void {
    this.child.stdout.resume();
  }

  /** Writes respecting the pipe's backpressure (never buffers megabytes in this process). */
  async write(data: string | Buffer): Promise<void> {
    if (!this.child.stdin.write(data)) await new Promise<void>((r) => this.child.stdin.once('drain', () => r()));
  }

  request(id: string | number, method: string, params?: unknown, timeoutMs = 60_000): Promise<Reply> {
    const key = JSON.stringify(id);
    const p = new Promise<Reply>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(key);
        reject(new Error(`no answer to ${method} #${id} within ${timeoutMs} ms; stderr: ${this.stderr.slice(-500)}`));
      }, timeoutMs);
      this.waiters.set(key, (r) => {
        clearTimeout(timer);
        resolve(r);
      });
    });
    void this.write(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }) + '\n');
    return p;
  }

  async initialize(): Promise<void> {
    const r = await this.request('init', 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '0' } });
    if (!r.result) throw new Error(`initialize failed: ${JSON.stringify(r)}`);
    await this.write(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) + '\n');
  }

  async callTool<T = string>(id: string | number, name: string, args: Record<string, unknown> = {}, parse = false): Promise<T> {
    const r = await this.request(id, 'tools/call', { name, arguments: args });
    const text = r.result?.content?.[0]?.text;
    if (text === undefined) throw new Error(`tool ${name} failed: ${JSON.stringify(r).slice(0, 500)}`);
    return (parse ? JSON.parse(text) : text) as T;
  }

  async close(): Promise<void> {
    this.child.stdin.end();
    const t = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(t);
  }
}
