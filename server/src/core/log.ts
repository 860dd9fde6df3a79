/**
 * Structured logging to stderr only: stdout belongs to the MCP protocol.
 * `redirectConsoleToStderr()` makes a stray console.log (ours or a dependency's) harmless.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

let threshold: number = ORDER[(process.env.SEXTANT_LOG_LEVEL as LogLevel) ?? 'info'] ?? ORDER.info;
/** Writes a log line to stderr (the default sink). */
export const stderrSink = (line: string): void => {
  process.stderr.write(line + '\n');
};
let sink: (line: string, level: LogLevel) => void = stderrSink;

export function setLogLevel(level: LogLevel): void {
  threshold = ORDER[level];
}
export function setLogSink(fn: (line: string, level: LogLevel) => void): void {
  sink = fn;
}

function emit(level: LogLevel, msg: string, fields?: Record<string, unknown>): void {
  if (ORDER[level] < threshold) return;
  const extra = fields ? ' ' + JSON.stringify(fields) : '';
  sink(`[sextant ${level}] ${msg}${extra}`, level);
}

export const log = {
  debug: (m: string, f?: Record<string, unknown>) => emit('debug', m, f),
  info: (m: string, f?: Record<string, unknown>) => emit('info', m, f),
  warn: (m: string, f?: Record<string, unknown>) => emit('warn', m, f),
  error: (m: string, f?: Record<string, unknown>) => emit('error', m, f),
};

export function redirectConsoleToStderr(): void {
  const write = (...args: unknown[]) =>
    process.stderr.write(args.map((a) => (typeof a === 'string' ? a : safeInspect(a))).join(' ') + '\n');
  console.log = write;
  console.info = write;
  console.debug = write;
  console.warn = write;
  console.error = write;
}

function safeInspect(a: unknown): string {
  try {
    return a instanceof Error ? (a.stack ?? a.message) : JSON.stringify(a);
  } catch {
    return String(a);
  }
}
