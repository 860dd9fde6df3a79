/**
 * Runs a child process and measures its wall time and peak resident set size. Peak RSS comes from
 * `/usr/bin/time -v` when present (exact), else from polling /proc/<pid>/status VmHWM (Linux).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';

export interface ChildRun {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  /** Peak RSS in bytes, undefined when it cannot be measured on this platform. */
  peakRssBytes: number | undefined;
  rssSource: '/usr/bin/time' | '/proc VmHWM' | 'unavailable';
}

const TIME = '/usr/bin/time';

export function runMeasured(cmd: string, args: readonly string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): Promise<ChildRun> {
  const useTime = process.platform === 'linux' && fs.existsSync(TIME);
  const [exe, argv] = useTime ? [TIME, ['-v', cmd, ...args]] : [cmd, [...args]];
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(exe, argv, { cwd: opts.cwd, env: opts.env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let polled: number | undefined;
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const poll =
      !useTime && process.platform === 'linux'
        ? setInterval(() => {
            try {
              const m = /VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'));
              if (m) polled = Math.max(polled ?? 0, Number(m[1]) * 1024);
            } catch {
              /* exited */
            }
          }, 20)
        : undefined;
    child.on('error', (e) => {
      if (poll) clearInterval(poll);
      reject(e);
    });
    child.on('close', (code) => {
      if (poll) clearInterval(poll);
      const wallMs = performance.now() - started;
      let peak: number | undefined = polled;
      let source: ChildRun['rssSource'] = polled !== undefined ? '/proc VmHWM' : 'unavailable';
      if (useTime) {
        const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
        if (m) {
          peak = Number(m[1]) * 1024;
          source = '/usr/bin/time';
        }
        const cut = stderr.lastIndexOf('\tCommand being timed:');
        if (cut >= 0) stderr = stderr.slice(0, cut);
        const exit = /Command exited with non-zero status (\d+)/.exec(stderr);
        if (exit) stderr = stderr.replace(exit[0], '');
      }
      resolve({ code, stdout, stderr, wallMs, peakRssBytes: peak, rssSource: source });
    });
  });
}
