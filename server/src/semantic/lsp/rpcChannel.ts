/**
 * The LSP base protocol (JSON-RPC 2.0, `Content-Length` framing) over a child process's stdio: the
 * one channel both the language servers here and Sextant's Roslyn host (`semantic/roslyn/`, which
 * speaks the same base protocol without being a language server) are reached through, so the
 * JSON-RPC library stays in this folder.
 */
import type { ChildProcess } from 'node:child_process';
import { CancellationTokenSource, createMessageConnection, ResponseError, StreamMessageReader, StreamMessageWriter, type MessageConnection } from 'vscode-jsonrpc/node';

export type RpcConnection = MessageConnection;

/** A source of cancellation for one request (`token` goes with the request as `$/cancelRequest`). */
export const RpcCancellation = CancellationTokenSource;

/** A connection over the child's stdout (reads) and stdin (writes); call `listen()` once wired. */
export function rpcOverStdio(child: ChildProcess): RpcConnection {
  return createMessageConnection(new StreamMessageReader(child.stdout!), new StreamMessageWriter(child.stdin!));
}

/** The JSON-RPC error code of a request the peer answered with an error; undefined for anything else. */
export function rpcErrorCode(e: unknown): number | undefined {
  return e instanceof ResponseError ? e.code : undefined;
}
