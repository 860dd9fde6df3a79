/**
 * Restore into Sextant's state: the projects that have no project.assets.json are restored the way
 * an editor does (`dotnet restore`, the repository's own MSBuild and NuGet configuration), in the
 * background, with every output redirected under the index root (restoreLayout.ts) — the
 * user-level NuGet cache is the only other place written, never a file under the workspace.
 *
 * Restore runs the repository's MSBuild logic, so it is a trust decision made by the caller: on in
 * a VS Code workspace the user trusted (`sextant.restore`), opt-in headless (`--restore`), never
 * otherwise; when it is not allowed, `note()` says so and what it costs. Runs are batches of
 * projects (a generated .slnx in the state folder; NuGet restores their references with them),
 * each bounded in time, all bounded together; progress is the count of assets files written.
 * A package the registry does not serve stays unresolved and is reported, as without restore.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RESTORE_BATCH_MAX_MS, RESTORE_BATCH_PROJECTS, RESTORE_MAX_OUTPUT_BYTES, RESTORE_PROGRESS_POLL_MS, RESTORE_TOTAL_MAX_MS } from '../../core/limits';
import { log } from '../../core/log';
import { groupSpawnOptions, watchOverGroup } from '../../core/processGroup';
import { restoreEnv, restoreLayout, stateAssetsFile, type RestoreLayout } from './restoreLayout';

export type RestorePermission = { allowed: true } | { allowed: false; why: string };

export interface RestoreOptions {
  /** Canonical absolute workspace root. */
  root: string;
  /** State folder (under the index root); created on the first run. */
  stateDir: string;
  permission: RestorePermission;
  /** The dotnet command (default `dotnet`). */
  dotnet?: string;
  /** Extra environment for the runs (tests: NUGET_PACKAGES). */
  env?: Record<string, string>;
  batchProjects?: number;
  batchMaxMs?: number;
  totalMaxMs?: number;
  /** Called after each run with the projects (workspace-relative) whose assets are now in the state folder. */
  onRestored?: (projects: string[]) => void;
}

export type RestorePhase = 'idle' | 'running' | 'done' | 'not_allowed' | 'refused';

export interface RestoreStatus {
  phase: RestorePhase;
  /** Projects asked to restore (those without project.assets.json in the tree). */
  total: number;
  /** Of those, with an assets file in the state folder now. */
  restored: number;
  /** Package ids the registry did not serve (NU1101 / NU1102), first seen first. */
  unresolved: string[];
  /** Runs that failed as a whole (exit code, timeout, unreachable source), one line each. */
  failures: string[];
  elapsedMs: number;
  /** Why restore does not run (not_allowed / refused). */
  why?: string;
}

export class RestoreService {
  private readonly layout: RestoreLayout;
  private phase: RestorePhase;
  private projects: string[] = [];
  private readonly unresolved = new Set<string>();
  private readonly failures: string[] = [];
  private startedAt = 0;
  private endedAt = 0;
  private child: ChildProcess | undefined;
  private disposed = false;
  private counted = { at: 0, restored: 0 };
  private why: string | undefined;
  private running: Promise<void> | undefined;
  private started = false;

  constructor(private readonly o: RestoreOptions) {
    this.layout = restoreLayout(o.stateDir);
    this.phase = o.permission.allowed ? 'idle' : 'not_allowed';
    if (!o.permission.allowed) this.why = o.permission.why;
  }

  get allowed(): boolean {
    return this.o.permission.allowed;
  }

  /** The assets file restore into state wrote for a project (workspace-relative), if it exists. */
  stateAssets(project: string): string | undefined {
    const f = stateAssetsFile(this.layout, project);
    return fs.existsSync(f) ? f : undefined;
  }

  /**
   * Starts restoring `projects` (workspace-relative .csproj paths without project.assets.json in
   * the tree; order = priority) in the background, once. `refusal`: why this tree may not be
   * restored (it sets restore's output paths itself), then nothing runs and answers say why.
   */
  start(projects: readonly string[], refusal?: string): void {
    if (this.disposed || this.started) return;
    this.started = true;
    this.projects = [...projects];
    if (this.phase === 'not_allowed') return;
    if (refusal) {
      this.phase = 'refused';
      this.why = refusal;
      return;
    }
    const todo = this.projects.filter((p) => !this.stateAssets(p));
    this.startedAt = Date.now();
    if (todo.length === 0) {
      this.phase = 'done';
      this.endedAt = this.startedAt;
      return;
    }
    this.phase = 'running';
    this.running = this.runAll(todo).finally(() => {
      this.phase = 'done';
      this.endedAt = Date.now();
      this.child = undefined;
    });
  }

  /** Resolves when the runs started by `start` end (tests, bench). */
  async whenDone(): Promise<void> {
    await this.running;
  }

  status(): RestoreStatus {
    return {
      phase: this.phase,
      total: this.projects.length,
      restored: this.restoredCount(),
      unresolved: [...this.unresolved],
      failures: [...this.failures],
      elapsedMs: this.startedAt === 0 ? 0 : (this.endedAt || Date.now()) - this.startedAt,
      ...(this.why ? { why: this.why } : {}),
    };
  }

  /**
   * One line for C# answers: restore running (announced), not allowed or refused (what it costs),
   * or done with packages the registry did not serve. Undefined when there is nothing to say.
   */
  note(): string | undefined {
    const s = this.status();
    const missing = s.total - s.restored;
    const pkgs = (n: number) => (s.unresolved.length ? `; ${s.unresolved.length} package(s) not served by the registry stay unresolved (${s.unresolved.slice(0, n).join(', ')}${s.unresolved.length > n ? ', …' : ''})` : '');
    switch (s.phase) {
      case 'running':
        return `restoring ${s.restored} of ${s.total} projects into Sextant's state (${Math.round(s.elapsedMs / 1000)} s so far): until it ends, types from their packages may be unresolved${pkgs(3)}`;
      case 'not_allowed':
        return missing > 0 ? `restore is not allowed (${s.why}): ${missing} project(s) without project.assets.json compile without their packages, so uses through package types can be missing` : undefined;
      case 'refused':
        return `restore into Sextant's state was not run: ${s.why}; ${s.total} project(s) without project.assets.json compile without their packages`;
      case 'done':
        if (missing === 0 && s.unresolved.length === 0) return undefined;
        return `restore into Sextant's state: ${s.restored} of ${s.total} projects restored in ${Math.round(s.elapsedMs / 1000)} s${pkgs(5)}${s.failures.length ? `; ${s.failures[0]}` : ''}`;
      default:
        return undefined;
    }
  }

  /** Stops a running restore (kills its process group) and starts no more runs. */
  dispose(): void {
    this.disposed = true;
    this.kill();
  }

  private kill(): void {
    const c = this.child;
    if (c?.pid && c.exitCode === null) {
      try {
        process.kill(-c.pid, 'SIGKILL');
      } catch {
        c.kill('SIGKILL');
      }
    }
  }

  private restoredCount(): number {
    const now = Date.now();
    if (this.phase === 'running' && now - this.counted.at < RESTORE_PROGRESS_POLL_MS) return this.counted.restored;
    const n = this.projects.filter((p) => this.stateAssets(p)).length;
    this.counted = { at: now, restored: n };
    return n;
  }

  private async runAll(todo: string[]): Promise<void> {
    const batch = this.o.batchProjects ?? RESTORE_BATCH_PROJECTS;
    const totalMax = this.o.totalMaxMs ?? RESTORE_TOTAL_MAX_MS;
    let env: Record<string, string>;
    try {
      env = restoreEnv(this.layout, this.o.root);
    } catch (e) {
      this.failures.push(`the state folder ${this.layout.dir} could not be written: ${(e as Error).message}`);
      return;
    }
    for (let i = 0; i < todo.length && !this.disposed; i += batch) {
      if (Date.now() - this.startedAt > totalMax) {
        this.failures.push(`stopped after ${Math.round(totalMax / 1000)} s with ${todo.length - i} project(s) not run`);
        break;
      }
      // A project an earlier run restored as a reference of its own is not run again.
      const part = todo.slice(i, i + batch).filter((p) => !this.stateAssets(p));
      if (part.length === 0) continue;
      await this.runOne(part, env, i / batch);
      this.counted.at = 0;
      const done = part.filter((p) => this.stateAssets(p));
      if (done.length) this.o.onRestored?.(done);
    }
  }

  /** One `dotnet restore` of a generated solution of `projects` in the state folder. */
  private runOne(projects: string[], env: Record<string, string>, n: number): Promise<void> {
    const sln = path.join(this.layout.dir, `restore-${n}.slnx`);
    const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
    fs.writeFileSync(sln, `<Solution>\n${projects.map((p) => `  <Project Path="${esc(path.join(this.o.root, p))}" />`).join('\n')}\n</Solution>\n`, { mode: 0o600 });
    // A source that cannot be reached is skipped (the packages the others serve still resolve; it is reported).
    const args = ['restore', sln, '--disable-build-servers', '-nodeReuse:false', '-noAutoResponse', '-nologo', '-v:q', '-p:NuGetAudit=false', '-p:RestoreIgnoreFailedSources=true'];
    const maxMs = this.o.batchMaxMs ?? RESTORE_BATCH_MAX_MS;
    return new Promise<void>((resolve) => {
      let out = '';
      const t0 = Date.now();
      let child: ChildProcess;
      try {
        child = spawn(this.o.dotnet ?? 'dotnet', args, {
          cwd: this.layout.dir,
          ...groupSpawnOptions(),
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, ...env, ...this.o.env, DOTNET_CLI_TELEMETRY_OPTOUT: '1', DOTNET_NOLOGO: '1', DOTNET_SKIP_FIRST_TIME_EXPERIENCE: '1', MSBUILDDISABLENODEREUSE: '1', DOTNET_CLI_USE_MSBUILD_SERVER: '0' },
        });
      } catch (e) {
        this.failures.push(`dotnet restore could not start: ${(e as Error).message}`);
        resolve();
        return;
      }
      this.child = child;
      // The run and its MSBuild nodes go down with the engine, even on SIGKILL.
      watchOverGroup(child);
      const take = (b: Buffer) => {
        if (out.length < RESTORE_MAX_OUTPUT_BYTES) out += b.toString('utf8');
      };
      child.stdout?.on('data', take);
      child.stderr?.on('data', take);
      const timer = setTimeout(() => {
        this.failures.push(`a restore run of ${projects.length} project(s) was stopped after ${Math.round(maxMs / 1000)} s`);
        this.kill();
      }, maxMs);
      timer.unref();
      const end = (code: number | null, err?: Error) => {
        clearTimeout(timer);
        this.readOutput(out);
        if (err) this.failures.push(`dotnet restore failed to run: ${err.message}`);
        else if (code !== 0 && !this.disposed) {
          const other = /error (?!NU110[12]|NU1301)[A-Z]+\d+: ([^\r\n[]*)/.exec(out)?.[1];
          if (other && this.unresolved.size === 0) this.failures.push(`dotnet restore: ${other.trim().slice(0, 200)}`);
        }
        log.info('restore into state: run ended', { projects: projects.length, code, ms: Date.now() - t0 });
        resolve();
      };
      child.once('error', (e) => end(null, e));
      child.once('close', (code) => end(code));
    });
  }

  /** Package ids NuGet could not find (the registry does not serve them). */
  private readOutput(out: string): void {
    for (const m of out.matchAll(/error NU110[12]: Unable to find package (\S+?)(?:\.\s| with version)/g)) this.unresolved.add(m[1]!);
    for (const m of out.matchAll(/(?:warning|error) NU1(?:801|301): Unable to load the service index for source (\S+?)\.?\s/g)) {
      const line = `package source ${m[1]} could not be reached`;
      if (!this.failures.includes(line)) this.failures.push(line);
    }
  }
}
