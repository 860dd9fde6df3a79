/**
 * `sextant doctor` for language servers: for each configured server, whether its executable is
 * found, the version it prints, and its current state (never starts a server).
 */
import * as cp from 'node:child_process';
import { LSP_VERSION_PROBE_TIMEOUT_MS } from '../../core/limits';
import type { ServerState, ServerStatus } from './languageServer';

export interface ServerDoctorRow {
  id: string;
  name: string;
  languages: string[];
  found: boolean;
  executable?: string;
  /** First line the server prints for its version flag, or why it could not be read. */
  version?: string;
  state: ServerState;
  detail: string;
  readyAfterMs?: number;
  restarts: number;
  loadProblems: string[];
  /** Known gaps of this server. */
  notes: string[];
}

export interface DoctorInput {
  status: ServerStatus;
  languages: string[];
  versionArgs?: string[];
  notes?: string[];
}

export async function doctorRows(inputs: DoctorInput[]): Promise<ServerDoctorRow[]> {
  return Promise.all(
    inputs.map(async ({ status, languages, versionArgs, notes }) => {
      const row: ServerDoctorRow = {
        id: status.id,
        name: status.name,
        languages,
        found: status.executable !== undefined,
        state: status.state,
        detail: status.detail,
        restarts: status.restarts,
        loadProblems: status.loadProblems,
        notes: notes ?? [],
      };
      if (status.executable) row.executable = status.executable;
      if (status.readyAfterMs !== undefined) row.readyAfterMs = status.readyAfterMs;
      if (status.version) row.version = status.version;
      else if (status.executable && versionArgs) row.version = await probeVersion(status.executable, versionArgs);
      return row;
    }),
  );
}

/** Runs `<exe> <versionArgs>` and returns its first output line. */
export function probeVersion(executable: string, args: string[]): Promise<string> {
  const isScript = /\.(c|m)?js$/.test(executable);
  const command = isScript ? process.execPath : executable;
  const argv = isScript ? [executable, ...args] : args;
  return new Promise((resolve) => {
    cp.execFile(
      command,
      argv,
      { timeout: LSP_VERSION_PROBE_TIMEOUT_MS, env: { ...process.env, ...(isScript ? { ELECTRON_RUN_AS_NODE: '1' } : {}), DOTNET_NOLOGO: '1' } },
      (error, stdout, stderr) => {
        const first = `${stdout}`.split('\n').map((l) => l.trim()).find(Boolean) ?? `${stderr}`.split('\n').map((l) => l.trim()).find(Boolean);
        if (first) resolve(first.slice(0, 200));
        else resolve(error ? `version unknown (${error.message.slice(0, 120)})` : 'version unknown');
      },
    );
  });
}
