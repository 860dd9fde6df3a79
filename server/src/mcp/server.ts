/**
 * `buildServer(engine)` — a pure factory: an MCP server over one engine with every tool registered.
 * Transports are attached by the caller (stdio in `sextant mcp`, HTTP in `sextant serve`).
 *
 * The low-level SDK server is used so that argument validation, errors, deadlines and budgets are
 * ours and uniform: bad input answers `Error [CODE]: … Hint: …` as a tool error, never a crash.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { isToolError, ToolError } from '../core/errors';
import { DEFAULT_ITEM_LIMIT, DEFAULT_RESPONSE_BYTES, MAX_RESPONSE_BYTES, MIN_RESPONSE_BYTES, TOOL_ANSWER_MS, TOOL_DEADLINE_GRACE_MS, TOOL_DEADLINE_MS } from '../core/limits';
import { log } from '../core/log';
import { asForeground } from '../core/timeSlice';
import type { Engine } from '../nav/engine';
import { buildAnswer, bytesOf } from './answer';
import { argsHash, decodeCursor, rowKey, stableJson, STALE_HINT, type CursorPosition } from './cursor';
import { heavyCall, nextSession, schedulerOf } from './scheduler';
import { SERVER_INSTRUCTIONS } from './instructions';
import { resultCacheOf } from './resultCache';
import { envelopeSchema, publishedInputSchema, publishedOutputSchema } from './schemas';
import type { AnyTool, PageRequest, ToolEnv } from './tool';
import { ALL_TOOLS } from './tools';

export const SERVER_NAME = 'sextant';
export const SERVER_VERSION = '0.1.0';

export interface ToolCallRecord {
  tool: string;
  args: unknown;
  ok: boolean;
  mode?: string;
  bytes: number;
  durationMs: number;
  error?: string;
  /** The answer's structuredContent (the agent activity view lists the locations it points at). */
  structured?: unknown;
}

export interface BuildServerOptions {
  tools?: readonly AnyTool[];
  /**
   * A call not answered by then answers STILL_WORKING and goes on; asked again it is joined
   * (scheduler.ts). Default TOOL_ANSWER_MS; 0 waits for every answer.
   */
  answerWithinMs?: number;
  /** Called after every tool call (agent activity view, logs). */
  onCall?: (record: ToolCallRecord) => void;
  deadlineMs?: number;
  /** Defaults when a call gives no `limit` / `maxBytes` (the VS Code settings `sextant.budget.*`). */
  defaults?: CallDefaults;
}

/** Per-server defaults for a call's row limit and byte budget. */
export interface CallDefaults {
  limit?: number;
  maxBytes?: number;
}


const LooseCallToolRequest = z.object({ method: z.literal('tools/call'), params: z.looseObject({ name: z.string(), arguments: z.unknown().optional() }) });

export function outputSchemaOf(tool: AnyTool): z.ZodType {
  return envelopeSchema(tool.item, tool.extra, tool.paged);
}

export function toolListing(tools: readonly AnyTool[]) {
  return tools.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: publishedInputSchema(t.input),
    outputSchema: publishedOutputSchema(outputSchemaOf(t), t),
    // destructiveHint / idempotentHint only mean something when readOnlyHint is false (MCP spec).
    annotations: { readOnlyHint: true, openWorldHint: false },
  }));
}

export function buildServer(engine: Engine, opts: BuildServerOptions = {}): Server {
  const tools = opts.tools ?? ALL_TOOLS;
  // One session per protocol server (a stdio connection, an HTTP session): its heavy calls queue in its own turn.
  const session = nextSession();
  const byName = new Map(tools.map((t) => [t.name, t]));
  const listing = toolListing(tools);
  const server = new Server({ name: SERVER_NAME, version: SERVER_VERSION }, { capabilities: { tools: {} }, instructions: SERVER_INSTRUCTIONS });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: listing }));
  // Parsed loosely here: the SDK checks the request against its own CallToolRequestSchema inside
  // and answers a malformed one (arguments that are not an object) -32602 Invalid params; parsed
  // strictly at this level it threw a bare ZodError, which went out as -32603 Internal error.
  server.setRequestHandler(LooseCallToolRequest, async (req) => {
    const started = Date.now();
    const name = req.params.name;
    const rawArgs = req.params.arguments ?? {};
    const result = await callTool(engine, tools, byName.get(name), name, rawArgs, opts.deadlineMs ?? TOOL_DEADLINE_MS, opts.defaults, { session, answerWithinMs: opts.answerWithinMs ?? TOOL_ANSWER_MS });
    const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
    const record: ToolCallRecord = { tool: name, args: rawArgs, ok: !result.isError, bytes: bytesOf(text), durationMs: Date.now() - started };
    const sc = result.structuredContent as { mode?: string } | undefined;
    if (sc?.mode) record.mode = sc.mode;
    if (result.isError) record.error = text;
    else if (result.structuredContent) record.structured = result.structuredContent;
    try {
      opts.onCall?.(record);
    } catch {
      /* an observer never breaks an answer */
    }
    return result;
  });
  return server;
}

/** Who asks and how long they wait (buildServer's sessions; in-process callers wait for every answer). */
export interface CallContext {
  session?: number;
  /** STILL_WORKING after this (0 or absent: wait for the answer). */
  answerWithinMs?: number;
}

export async function callTool(engine: Engine, tools: readonly AnyTool[], tool: AnyTool | undefined, name: string, rawArgs: unknown, deadlineMs: number, defaults: CallDefaults = {}, call: CallContext = {}): Promise<CallToolResult> {
  try {
    if (!tool) {
      throw new ToolError('INVALID_ARGUMENT', `Unknown tool '${String(name).slice(0, 80)}'`, `call one of: ${tools.map((t) => t.name).join(', ')}`);
    }
    const parsed = tool.input.safeParse(rawArgs);
    if (!parsed.success) {
      const issues = parsed.error.issues
        .slice(0, 5)
        .map((i) => `${i.path.length ? i.path.join('.') : '(arguments)'}: ${i.message}`)
        .join('; ');
      throw new ToolError('INVALID_ARGUMENT', `Invalid arguments for ${tool.name}: ${issues}`, 'check the tool input schema (tools/list); unknown fields are rejected');
    }
    const args = parsed.data as Record<string, unknown>;
    const scheduler = schedulerOf(engine);
    const heavy = heavyCall(tool.name, args);
    // A cheap call is foreground: background slices (core/timeSlice.ts) wait while it runs.
    const answer = () => answerCall(engine, tools, tool, args, deadlineMs, defaults);
    const work = () => scheduler.run(call.session ?? 0, heavy, heavy ? answer : () => asForeground(answer));
    if (!call.answerWithinMs) return await work();
    // `waitMs` (semantic tools: how long the caller lets a loading provider take) extends the wait.
    const within = call.answerWithinMs + (typeof args.waitMs === 'number' ? args.waitMs : 0);
    const r = await scheduler.within(`${tool.name}|${stableJson(args)}|${engine.version}`, within, work);
    if ('value' in r) return r.value;
    const load = scheduler.load();
    throw new ToolError(
      'STILL_WORKING',
      `${tool.name} is still working on this question after ${(r.elapsedMs / 1000).toFixed(1)} s; the engine goes on with it${load.waiting ? ` (${load.running + load.waiting} heavy questions running or waiting)` : ''}`,
      'ask the same question again (same arguments) for its answer; narrow it (project, path glob, scope) to make it faster',
    );
  } catch (e) {
    return errorResult(e, name, rawArgs, defaults);
  }
}

/** One validated call: deadline, paging cursor and kept values, budget. */
async function answerCall(engine: Engine, tools: readonly AnyTool[], tool: AnyTool, args: Record<string, unknown>, deadlineMs: number, defaults: CallDefaults): Promise<CallToolResult> {
  const rawArgs = args;
  const name = tool.name;
  try {
    const limit = typeof args.limit === 'number' ? args.limit : (tool.defaultLimit ?? defaults.limit ?? DEFAULT_ITEM_LIMIT);
    const asked = typeof args.maxBytes === 'number' ? args.maxBytes : tool.maxBytesOf?.(args as never);
    const maxBytes = asked ?? defaults.maxBytes ?? DEFAULT_RESPONSE_BYTES;
    const version = engine.version;
    const pos: CursorPosition = typeof args.cursor === 'string' ? decodeCursor(args.cursor, tool.name, version, args) : { offset: 0 };
    // The paging contract (docs/architecture.md "Paging"): values computed through env.once are
    // kept for the cursor, so later pages slice the first page's computation.
    const cache = resultCacheOf(engine);
    const owner = `${tool.name}|${argsHash(args)}|${version}`;
    const kept = pos.entry !== undefined ? cache.get(pos.entry, owner) : undefined;
    const fresh = new Map<string, unknown>();
    const once = async <T,>(key: string, compute: () => Promise<T> | T): Promise<T> => {
      if (kept?.has(key)) return kept.get(key) as T;
      if (pos.entry !== undefined) throw new ToolError('STALE_CURSOR', 'The result this cursor pages through is no longer kept', STALE_HINT);
      if (!fresh.has(key)) fresh.set(key, await compute());
      return fresh.get(key) as T;
    };
    // A later page is asked one row early: that row must be the one the cursor saw last, else the
    // result changed (or came back in another order) and the cursor is refused, never followed blindly.
    const overlap = pos.offset > 0 && pos.lastKey !== undefined && pos.resume === undefined ? 1 : 0;
    const page: PageRequest = { offset: pos.offset - overlap, limit: limit + overlap, maxBytes };
    if (pos.resume !== undefined) page.resume = pos.resume;
    const deadlineAt = Date.now() + deadlineMs;
    const env: ToolEnv = { engine, deadlineAt, tools, once };
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new ToolError('DEADLINE_EXCEEDED', `${tool.name} did not finish within ${deadlineMs} ms`, 'narrow the query (path glob, kinds, project) and retry')),
        deadlineMs + TOOL_DEADLINE_GRACE_MS,
      );
    });
    let result;
    try {
      result = await Promise.race([tool.handle(env, args as never, page), deadline]);
    } finally {
      clearTimeout(timer);
    }
    if (result.offset === undefined) result.offset = page.offset;
    if (overlap) {
      const first = result.items[0];
      if (result.offset !== page.offset || first === undefined || rowKey(first) !== pos.lastKey) {
        throw new ToolError('STALE_CURSOR', `The answer changed since the cursor was issued (row ${pos.offset} is not the one the previous page ended with)`, STALE_HINT);
      }
      const positionAfter = result.positionAfter;
      result = { ...result, items: result.items.slice(1), offset: pos.offset };
      if (positionAfter) result.positionAfter = (i) => positionAfter(i + 1);
    }
    let entry = pos.entry ?? (fresh.size > 0 ? cache.allocate() : undefined);
    const meta = engine.meta();
    let answer = buildAnswer(tool, result, meta, args, maxBytes, { entry, limit });
    if (answer.structured.nextCursor !== undefined && fresh.size > 0 && entry !== undefined && !cache.has(entry)) {
      if (!cache.keep(entry, owner, fresh, keptBytes(fresh))) {
        // Too big to keep: the cursor re-computes, and the row check above refuses it if the result moved.
        entry = undefined;
        answer = buildAnswer(tool, result, meta, args, maxBytes, { limit });
      }
    }
    return { content: [{ type: 'text', text: answer.text }], structuredContent: answer.structured };
  } catch (e) {
    return errorResult(e, name, rawArgs, defaults);
  }
}

function errorResult(e: unknown, name: string, rawArgs: unknown, defaults: CallDefaults): CallToolResult {
  if (isToolError(e)) return { isError: true, content: [{ type: 'text', text: boundedErrorText(e, errorBudget(rawArgs, defaults)) }] };
  log.error('tool failed', { tool: name, error: (e as Error).stack ?? String(e) });
  return { isError: true, content: [{ type: 'text', text: new ToolError('INTERNAL', `${name} failed unexpectedly`, 'the server is still running; retry, and report the logged stack if it repeats').render() }] };
}

/** The JSON bytes of values kept for a cursor (an estimate of their heap size); Infinity when they do not serialise. */
function keptBytes(values: Map<string, unknown>): number {
  let n = 0;
  try {
    for (const v of values.values()) n += Buffer.byteLength(JSON.stringify(v) ?? '', 'utf8');
  } catch {
    return Infinity;
  }
  return n;
}

/** The byte budget an error answer obeys: the caller's valid `maxBytes`, else the default. */
function errorBudget(rawArgs: unknown, defaults: CallDefaults): number {
  const m = (rawArgs as { maxBytes?: unknown } | null | undefined)?.maxBytes;
  if (typeof m === 'number' && Number.isInteger(m) && m >= MIN_RESPONSE_BYTES && m <= MAX_RESPONSE_BYTES) return m;
  return defaults.maxBytes ?? DEFAULT_RESPONSE_BYTES;
}

/**
 * An error answer is within the byte budget too: errors echo caller input (a 1,000-character
 * project name), so the message is shortened in the middle; code and hint are kept.
 */
export function boundedErrorText(e: ToolError, maxBytes: number): string {
  const full = e.render();
  if (Buffer.byteLength(full) <= maxBytes) return full;
  const head = `Error [${e.code}]: `;
  const hint = ` Hint: ${e.hint}`;
  const room = maxBytes - Buffer.byteLength(head) - Buffer.byteLength(hint) - 4;
  if (room < 40) return truncateBytes(`${head}${e.message}`, maxBytes);
  const half = Math.floor(room / 2);
  const msg = `${headBytes(e.message, half)}…${tailBytes(e.message, room - half)}`;
  return `${head}${msg}${/[.!?]$/.test(msg) ? '' : '.'}${hint}`;
}

function truncateBytes(s: string, max: number): string {
  return Buffer.byteLength(s) <= max ? s : headBytes(s, Math.max(0, max - 3)) + '…';
}

function headBytes(s: string, max: number): string {
  const b = Buffer.from(s, 'utf8');
  if (b.length <= max) return s;
  return b.subarray(0, max).toString('utf8').replace(/\uFFFD+$/, '');
}

function tailBytes(s: string, max: number): string {
  const b = Buffer.from(s, 'utf8');
  if (b.length <= max) return s;
  return b.subarray(b.length - max).toString('utf8').replace(/^\uFFFD+/, '');
}
