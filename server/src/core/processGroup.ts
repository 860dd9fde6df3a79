/**
 * Helper processes (language servers, and whatever they start: MSBuild nodes, build hosts) must
 * not outlive the engine, even when the engine is killed with SIGKILL and runs no exit handler.
 * On POSIX each helper is started in its own process group (`spawnOptions()`), and a tiny `sh`
 * watchdog — its own session, so a terminal's Ctrl-C does not reach it — polls the engine's pid and
 * takes the whole group down when the engine is gone (or exits as soon as the group is empty).
 * Windows keeps plain child processes (no process groups there).
 */
import * as cp from 'node:child_process';
import { CHILD_WATCHDOG_GRACE_S, CHILD_WATCHDOG_POLL_S } from './limits';

const POSIX = process.platform !== 'win32';

// $1 engine pid, $2 helper process group. A zombie engine (killed, not yet reaped) counts as dead.
const WATCHDOG = `
alive() { kill -0 "$1" 2>/dev/null || return 1; [ -r "/proc/$1/stat" ] || return 0; read -r _ _ s _ < "/proc/$1/stat"; [ "$s" != Z ]; }
while alive "$1"; do kill -0 "-$2" 2>/dev/null || exit 0; sleep ${CHILD_WATCHDOG_POLL_S}; done
kill -TERM "-$2" 2>/dev/null || exit 0
sleep ${CHILD_WATCHDOG_GRACE_S}
kill -KILL "-$2" 2>/dev/null
exit 0
`;

/** Spawn options that put the helper in a process group of its own (POSIX). */
export function groupSpawnOptions(): { detached: boolean } {
  return { detached: POSIX };
}

/** Starts the watchdog for a helper spawned with `groupSpawnOptions()`; it ends by itself. */
export function watchOverGroup(child: cp.ChildProcess): void {
  if (!POSIX || child.pid === undefined) return;
  try {
    const w = cp.spawn('/bin/sh', ['-c', WATCHDOG, 'sextant-watchdog', String(process.pid), String(child.pid)], { detached: true, stdio: 'ignore' });
    w.on('error', () => undefined);
    w.unref();
  } catch {
    /* no /bin/sh: the engine's exit handler still kills the group on a normal exit */
  }
}

/** Sends a signal to the helper's whole process group (POSIX), else to the helper alone. */
export function killGroup(child: cp.ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    if (POSIX) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    try {
      child.kill(signal);
    } catch {
      /* already gone */
    }
  }
}
