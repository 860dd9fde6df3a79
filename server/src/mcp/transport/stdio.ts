/**
 * A stdio MCP transport that keeps serving whatever arrives on stdin, in bounded memory.
 *
 * Wire format: newline-delimited JSON-RPC 2.0, as the SDK's StdioServerTransport. Differences:
 * - a bad frame is answered and skipped, never fatal: invalid JSON → -32700, valid JSON that is not
 *   a JSON-RPC message → -32600 (the request id is echoed only when it is a string or number whose
 *   JSON is at most MAX_ECHOED_ID_CHARS; otherwise `id: null`, as JSON-RPC 2.0 specifies);
 * - a frame over STDIO_MAX_FRAME_BYTES is discarded up to the next newline (with one -32600); the
 *   partial frame is held as a list of chunks, so a split frame is copied once, on reassembly;
 * - a run of bad frames gets at most STDIO_MAX_ERROR_REPLIES_PER_RUN replies, then one notice on
 *   stderr and silence until a valid message arrives (a flood of tiny bad lines cannot be
 *   amplified into a flood of bigger replies and log lines);
 * - outbound messages go through one queue with at most one `drain` listener; stdin is paused
 *   (mid-chunk: the rest of the read is held, not parsed) while more than
 *   STDIO_PAUSE_INPUT_ABOVE_BYTES wait for stdout or STDIO_MAX_INFLIGHT_REQUESTS requests are
 *   unanswered, and resumed below STDIO_RESUME_INPUT_BELOW_BYTES; beyond STDIO_MAX_OUTBOUND_BYTES
 *   `send()` fails fast;
 * - a request whose id is longer than MAX_ECHOED_ID_CHARS is refused (no reflection of big ids);
 * - when bound to process.stdout, console.* is redirected to stderr so nothing else writes there.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { Readable, Writable } from 'node:stream';
import {
  MAX_ECHOED_ID_CHARS,
  STDIO_MAX_ERROR_REPLIES_PER_RUN,
  STDIO_MAX_FRAME_BYTES,
  STDIO_MAX_INFLIGHT_REQUESTS,
  STDIO_MAX_OUTBOUND_BYTES,
  STDIO_PAUSE_INPUT_ABOVE_BYTES,
  STDIO_RESUME_INPUT_BELOW_BYTES,
} from '../../core/limits';
import { log, redirectConsoleToStderr } from '../../core/log';

/** JSON-RPC 2.0 error codes used by the transport. */
export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

export interface StdioTransportOptions {
  input?: Readable;
  output?: Writable;
  /** Overrides for tests; production uses the limits in core/limits.ts. */
  maxFrameBytes?: number;
  maxErrorRepliesPerRun?: number;
  pauseInputAboveBytes?: number;
  resumeInputBelowBytes?: number;
  maxOutboundBytes?: number;
  maxInflightRequests?: number;
}

/** Counters a test or `server_capabilities` can read. */
export interface StdioTransportStats {
  framesReceived: number;
  badFrames: number;
  oversizedFrames: number;
  errorReplies: number;
  suppressedErrorReplies: number;
  floodNotices: number;
  queuedBytes: number;
  /** Peak of bytes waiting for the client (our queue plus the stream's own buffer). */
  maxPendingBytes: number;
  inflightRequests: number;
  maxInflightRequests: number;
  sendsRefused: number;
  inputPauses: number;
  inputPaused: boolean;
  drainListeners: number;
}

interface Pending {
  data: Buffer;
  resolve: () => void;
  reject: (e: Error) => void;
}

export class StdioTransport implements Transport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: (<T extends JSONRPCMessage>(message: T) => void) | undefined;
  sessionId?: string | undefined;

  private readonly input: Readable;
  private readonly output: Writable;
  private readonly maxFrameBytes: number;
  private readonly maxErrorReplies: number;
  private readonly pauseAbove: number;
  private readonly resumeBelow: number;
  private readonly maxOutbound: number;
  private readonly maxInflight: number;

  // inbound
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private discarding = false;
  private badRun = 0;
  /** The unparsed rest of a read, held while input is paused. */
  private held: Buffer | undefined;
  /** A parsed request waiting for an in-flight slot (everything after it waits too, in order). */
  private deferred: JSONRPCMessage | undefined;
  private readonly inflight = new Set<string | number>();
  private pumping = false;
  // outbound
  private queue: Pending[] = [];
  private queuedBytes = 0;
  private waitingForDrain = false;
  private pausedByUs = false;
  private started = false;
  private closed = false;

  private readonly counters = {
    framesReceived: 0,
    badFrames: 0,
    oversizedFrames: 0,
    errorReplies: 0,
    suppressedErrorReplies: 0,
    floodNotices: 0,
    maxPendingBytes: 0,
    maxInflightRequests: 0,
    sendsRefused: 0,
    inputPauses: 0,
  };

  constructor(opts: StdioTransportOptions = {}) {
    this.input = opts.input ?? process.stdin;
    this.output = opts.output ?? process.stdout;
    this.maxFrameBytes = opts.maxFrameBytes ?? STDIO_MAX_FRAME_BYTES;
    this.maxErrorReplies = opts.maxErrorRepliesPerRun ?? STDIO_MAX_ERROR_REPLIES_PER_RUN;
    this.pauseAbove = opts.pauseInputAboveBytes ?? STDIO_PAUSE_INPUT_ABOVE_BYTES;
    this.resumeBelow = opts.resumeInputBelowBytes ?? STDIO_RESUME_INPUT_BELOW_BYTES;
    this.maxOutbound = opts.maxOutboundBytes ?? STDIO_MAX_OUTBOUND_BYTES;
    this.maxInflight = opts.maxInflightRequests ?? STDIO_MAX_INFLIGHT_REQUESTS;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('StdioTransport already started');
    this.started = true;
    if (this.output === process.stdout) redirectConsoleToStderr();
    this.input.on('data', this.onData);
    this.input.on('error', this.onInputError);
    this.input.on('end', this.onEnd);
    this.output.on('error', this.onOutputError);
    this.input.resume();
  }

  send(message: JSONRPCMessage): Promise<void> {
    if (this.closed) return Promise.reject(new Error('transport closed'));
    let json: string;
    try {
      json = JSON.stringify(message);
    } catch (e) {
      return Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
    const done = this.enqueue(Buffer.from(json + '\n', 'utf8'));
    // A response (delivered or refused) ends its request: the next one may be read.
    if (('result' in message || 'error' in message) && 'id' in message && message.id !== undefined) {
      if (this.inflight.delete(message.id)) this.pump();
    }
    return done;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.input.off('data', this.onData);
    this.input.off('error', this.onInputError);
    this.input.off('end', this.onEnd);
    this.output.off('drain', this.onDrain);
    this.output.off('error', this.onOutputError);
    this.waitingForDrain = false;
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.partial = [];
    this.partialBytes = 0;
    this.held = undefined;
    this.deferred = undefined;
    this.inflight.clear();
    const err = new Error('transport closed');
    for (const p of this.queue.splice(0)) p.reject(err);
    this.queuedBytes = 0;
    this.onclose?.();
  }

  stats(): StdioTransportStats {
    return {
      ...this.counters,
      queuedBytes: this.queuedBytes,
      inflightRequests: this.inflight.size,
      inputPaused: this.pausedByUs,
      drainListeners: this.output.listenerCount('drain'),
    };
  }

  // ---- inbound ----

  private readonly onData = (chunk: Buffer | string): void => {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    if (this.held) this.held = Buffer.concat([this.held, buf]);
    else this.consume(buf);
    this.pump();
  };

  /** Parses complete frames from `buf`; stops (holding the rest) as soon as input must pause. */
  private consume(buf: Buffer): void {
    let start = 0;
    while (start < buf.length && !this.closed) {
      if (this.mustHold()) {
        this.held = buf.subarray(start);
        return;
      }
      const nl = buf.indexOf(0x0a, start);
      if (nl === -1) {
        this.appendPartial(buf.subarray(start));
        return;
      }
      const tail = buf.subarray(start, nl);
      start = nl + 1;
      if (this.discarding) {
        this.discarding = false;
        continue;
      }
      if (this.partialBytes + tail.length > this.maxFrameBytes) {
        this.dropOversized();
        continue;
      }
      let frame: Buffer;
      if (this.partial.length === 0) frame = tail;
      else {
        this.partial.push(tail);
        frame = Buffer.concat(this.partial, this.partialBytes + tail.length);
        this.partial = [];
        this.partialBytes = 0;
      }
      this.handleFrame(frame);
    }
  }

  /**
   * True while reading must stop: too much waits for the client, or a request waits for a slot.
   * Notifications and responses are still read while requests are at the cap, so a cancellation
   * reaches the server even when every slot is taken (unless it is queued behind a waiting request).
   */
  private mustHold(): boolean {
    return this.pendingBytes() > this.pauseAbove || this.deferred !== undefined;
  }

  private canResume(): boolean {
    return this.pendingBytes() < this.resumeBelow && (this.deferred === undefined || this.inflight.size < this.maxInflight);
  }

  /** Processes held input when allowed, and pauses or resumes stdin accordingly. */
  private pump(): void {
    if (this.pumping || this.closed) return;
    this.pumping = true;
    try {
      if ((this.held || this.deferred) && !this.pausedByUs) this.pauseInput();
      if (this.pausedByUs && this.canResume()) {
        if (this.deferred) {
          const msg = this.deferred;
          this.deferred = undefined;
          this.dispatch(msg);
        }
        while (this.held && !this.mustHold() && !this.closed) {
          const rest = this.held;
          this.held = undefined;
          this.consume(rest);
        }
        if (!this.held && !this.mustHold() && !this.closed) {
          this.pausedByUs = false;
          this.input.resume();
        }
      } else if (!this.pausedByUs && this.mustHold()) {
        this.pauseInput();
      }
    } finally {
      this.pumping = false;
    }
  }

  private pauseInput(): void {
    this.pausedByUs = true;
    this.counters.inputPauses++;
    this.input.pause();
  }

  private appendPartial(part: Buffer): void {
    if (part.length === 0 || this.discarding) return;
    if (this.partialBytes + part.length > this.maxFrameBytes) {
      this.dropOversized();
      this.discarding = true;
      return;
    }
    // Copy: a subarray would pin the whole (up to 64 KiB) read chunk for a few bytes of frame.
    this.partial.push(Buffer.from(part));
    this.partialBytes += part.length;
  }

  private dropOversized(): void {
    this.partial = [];
    this.partialBytes = 0;
    this.counters.oversizedFrames++;
    this.badFrame(INVALID_REQUEST, `Frame larger than ${this.maxFrameBytes} bytes discarded`, null);
  }

  private handleFrame(frame: Buffer): void {
    let end = frame.length;
    while (end > 0 && (frame[end - 1] === 0x0d || frame[end - 1] === 0x20 || frame[end - 1] === 0x09)) end--;
    if (end === 0) return; // blank line: keep-alive, not an error
    this.counters.framesReceived++;
    let value: unknown;
    try {
      value = JSON.parse(frame.toString('utf8', 0, end));
    } catch {
      this.badFrame(PARSE_ERROR, 'Parse error: the frame is not valid JSON', null);
      return;
    }
    let parsed;
    try {
      parsed = JSONRPCMessageSchema.safeParse(value);
    } catch {
      parsed = undefined; // pathological nesting can overflow a validator's stack
    }
    const id = echoableId(value);
    if (!parsed?.success) {
      this.badFrame(INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message', id);
      return;
    }
    const msg = parsed.data as JSONRPCMessage;
    if ('id' in msg && msg.id !== undefined && id === null) {
      this.badFrame(INVALID_REQUEST, `Invalid Request: the id is longer than ${MAX_ECHOED_ID_CHARS} characters`, null);
      return;
    }
    this.badRun = 0;
    this.dispatch(msg);
  }

  /** Delivers a valid message; a request beyond the in-flight cap is deferred (and input held). */
  private dispatch(msg: JSONRPCMessage): void {
    if ('method' in msg) {
      if ('id' in msg && msg.id !== undefined) {
        if (this.inflight.size >= this.maxInflight) {
          this.deferred = msg;
          return;
        }
        this.inflight.add(msg.id);
        if (this.inflight.size > this.counters.maxInflightRequests) this.counters.maxInflightRequests = this.inflight.size;
      } else if (msg.method === 'notifications/cancelled') {
        // The SDK sends no response to a cancelled request: forget it here, or it would count forever.
        const rid = (msg.params as { requestId?: unknown } | undefined)?.requestId;
        if ((typeof rid === 'string' || typeof rid === 'number') && this.inflight.delete(rid)) queueMicrotask(() => this.pump());
      }
    }
    try {
      this.onmessage?.(msg);
    } catch (e) {
      this.onerror?.(e instanceof Error ? e : new Error(String(e)));
    }
  }

  private badFrame(code: number, message: string, id: string | number | null): void {
    this.counters.badFrames++;
    this.badRun++;
    if (this.badRun > this.maxErrorReplies) {
      this.counters.suppressedErrorReplies++;
      if (this.badRun === this.maxErrorReplies + 1) {
        this.counters.floodNotices++;
        log.warn('stdio: too many malformed frames in a row; further error replies are suppressed until a valid message arrives', {
          replied: this.maxErrorReplies,
        });
      }
      return;
    }
    this.counters.errorReplies++;
    const reply = JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } }) + '\n';
    // Error replies are best-effort: when the queue is full they are dropped, never buffered.
    this.enqueue(Buffer.from(reply, 'utf8')).catch(() => undefined);
  }

  private readonly onInputError = (e: Error): void => {
    this.onerror?.(e);
  };

  private readonly onEnd = (): void => {
    void this.close();
  };

  // ---- outbound ----

  private enqueue(data: Buffer): Promise<void> {
    if (this.queuedBytes + data.length > this.maxOutbound) {
      this.counters.sendsRefused++;
      return Promise.reject(new Error(`stdout queue full (${this.queuedBytes} bytes waiting; the client is not reading)`));
    }
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ data, resolve, reject });
      this.queuedBytes += data.length;
      const pending = this.pendingBytes();
      if (pending > this.counters.maxPendingBytes) this.counters.maxPendingBytes = pending;
      this.flush();
    });
  }

  private flush(): void {
    while (!this.waitingForDrain && this.queue.length > 0 && !this.closed) {
      const p = this.queue.shift() as Pending;
      this.queuedBytes -= p.data.length;
      const more = this.output.write(p.data);
      p.resolve();
      if (!more) {
        this.waitingForDrain = true;
        this.output.once('drain', this.onDrain);
      }
    }
    this.pump();
  }

  private readonly onDrain = (): void => {
    this.waitingForDrain = false;
    this.flush();
  };

  /** What waits for the client: our queue plus what the stream itself still holds. */
  private pendingBytes(): number {
    return this.queuedBytes + this.output.writableLength;
  }

  private readonly onOutputError = (e: Error): void => {
    // EPIPE: the client went away. Nothing can be delivered any more.
    this.onerror?.(e);
    void this.close();
  };
}

/** The request id when it may be echoed: a string or integer whose JSON is short. */
function echoableId(value: unknown): string | number | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const id = (value as { id?: unknown }).id;
  if (typeof id === 'number' && Number.isInteger(id)) return String(id).length <= MAX_ECHOED_ID_CHARS ? id : null;
  if (typeof id === 'string') return id.length <= MAX_ECHOED_ID_CHARS && JSON.stringify(id).length <= MAX_ECHOED_ID_CHARS ? id : null;
  return null;
}
