/** A real MCP client over real stdio against the built CLI (dist/cli.js). */
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

export const CLI = path.resolve(__dirname, '../../dist/cli.js');

export interface Connected {
  client: Client;
  /** The engine process's pid (null once it exited). */
  readonly pid: number | null;
  close(): Promise<void>;
  stderr(): string;
}

/**
 * The engine's environment: the SDK passes only a few variables (HOME, PATH, …); every `SEXTANT_*`
 * setting of this process goes too (a test configures its engine with them: e.g. SEXTANT_RESTORE,
 * SEXTANT_ROSLYN_NO_PREWARM, or a stall trace for test/bench/loopStalls.cjs), plus `extra`.
 */
export function engineEnv(extra: Record<string, string> = {}): Record<string, string> {
  const own = Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('SEXTANT_') && e[1] !== undefined);
  return { ...getDefaultEnvironment(), ...Object.fromEntries(own), ...extra };
}

/** `env`: variables for this engine only, over the `SEXTANT_*` settings of this process (see engineEnv). */
export async function connectStdio(workspaceRoot: string, indexRoot: string, extraArgs: string[] = [], nodeFlags: string[] = [], env: Record<string, string> = {}): Promise<Connected> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...nodeFlags, CLI, 'mcp', '--workspace-root', workspaceRoot, '--index-root', indexRoot, ...extraArgs],
    stderr: 'pipe',
    env: engineEnv(env),
  });
  let err = '';
  transport.stderr?.on('data', (c: Buffer) => {
    err += c.toString('utf8');
  });
  const client = new Client({ name: 'sextant-e2e', version: '0.0.0' });
  await client.connect(transport);
  return {
    client,
    get pid() {
      return transport.pid;
    },
    close: async () => {
      await client.close();
    },
    stderr: () => err,
  };
}

/**
 * One tool call as an agent makes it: asked again while the engine answers STILL_WORKING (a call
 * not answered within its answer deadline goes on in the engine; the same question joins it).
 */
export async function callSettled(client: Client, name: string, args: Record<string, unknown>, timeoutMs = 120_000): Promise<Awaited<ReturnType<Client['callTool']>>> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: timeoutMs });
    const text = (r.content as { text?: string }[] | undefined)?.[0]?.text ?? '';
    if (!r.isError || !text.startsWith('Error [STILL_WORKING]') || Date.now() > end) return r;
  }
}

/** Calls a tool and returns structuredContent (throws with the error text on isError). */
export async function call(client: Client, name: string, args: Record<string, unknown>): Promise<any> {
  const r = await callSettled(client, name, args);
  if (r.isError) {
    const text = (r.content as { text: string }[])[0]?.text ?? '';
    const e = new Error(text);
    (e as Error & { toolError: string }).toolError = text;
    throw e;
  }
  return r.structuredContent;
}

/** Calls a tool expecting an error; returns the error text. */
export async function callError(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const r = await callSettled(client, name, args);
  if (!r.isError) throw new Error(`expected an error from ${name}, got ${JSON.stringify(r.structuredContent).slice(0, 300)}`);
  return (r.content as { text: string }[])[0]?.text ?? '';
}

/** Polls until `fn` returns true or the timeout passes. */
export async function waitFor(fn: () => Promise<boolean>, timeoutMs = 20_000, stepMs = 100): Promise<void> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (await fn()) return;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, stepMs));
  }
}
