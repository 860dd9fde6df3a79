/**
 * Child process of the freshness section (not a test): one engine start over a warm index, as
 * `sextant mcp` does it (open, refresh, watch), with a question sent as soon as watching starts.
 * An event-loop lag probe (a 5 ms interval; the longest gap between two ticks) runs from the start.
 *
 *   node --import tsx test/bench/engineStartProbe.ts <workspace> <indexRoot> <native|fs.watch> <path to outline>
 *
 * Prints one JSON line: openMs, refreshMs, watchCallMs (the watch() call itself), watchBlockMs (longest
 * event-loop block from the watch() call until the watcher is ready + 3 s), startBlockMs (longest block
 * over the whole start), answerAfterWatchMs (a question sent with watch() → answered), startToAnswerMs
 * (process's engine open → that answer), watchReadyMs, backend, rssMiB, topBlocks ([ms after watch(), length]
 * of the three longest blocks over 100 ms in the window).
 */
import { performance } from 'node:perf_hooks';
import { callTool } from '../../server/src/mcp/server';
import { ALL_TOOLS } from '../../server/src/mcp/tools';
import { Engine } from '../../server/src/nav/engine';

const [root, indexRoot, backend, file] = process.argv.slice(2) as [string, string, 'native' | 'fs.watch', string];
const PROBE_MS = 5;

let last = performance.now();
let maxGap = 0;
let windowGap = 0;
let inWindow = false;
let windowStart = 0;
/** The longest blocks in the window: [ms after watch() when the block began, its length]. */
const top: [number, number][] = [];
const probe = setInterval(() => {
  const now = performance.now();
  const gap = now - last - PROBE_MS;
  if (gap > maxGap) maxGap = gap;
  if (inWindow && gap > windowGap) windowGap = gap;
  if (inWindow && gap > 100) {
    top.push([Math.round(last - windowStart), Math.round(gap)]);
    top.sort((a, b) => b[1] - a[1]);
    top.length = Math.min(top.length, 3);
  }
  last = now;
}, PROBE_MS);

async function main(): Promise<void> {
  const t0 = performance.now();
  const e = await Engine.open({ workspaceRoot: root, indexRoot });
  const opened = performance.now();
  const stats = await e.refresh();
  const refreshed = performance.now();
  // The question is sent as watching starts (it is queued behind whatever the watch() call blocks).
  inWindow = true;
  last = performance.now(); // gaps before the window do not count in it
  const tWatch = performance.now();
  windowStart = tWatch;
  let answered = 0;
  const question = new Promise<void>((resolve) =>
    setImmediate(() => {
      void callTool(e, ALL_TOOLS, ALL_TOOLS.find((t) => t.name === 'outline'), 'outline', { path: file }, 60_000).then(() => {
        answered = performance.now();
        resolve();
      });
    }),
  );
  e.watch(undefined, backend);
  const watchCall = performance.now() - tWatch;
  await question;
  await e.watchReady();
  const ready = performance.now();
  await new Promise((r) => setTimeout(r, 3_000));
  inWindow = false;
  const out = {
    backend: e.watchStatus()?.backend,
    changedAtStart: stats.added + stats.changed + stats.deleted,
    openMs: Math.round(opened - t0),
    refreshMs: Math.round(refreshed - opened),
    watchCallMs: Math.round(watchCall),
    watchBlockMs: Math.round(windowGap),
    startBlockMs: Math.round(maxGap),
    answerAfterWatchMs: Math.round(answered - tWatch),
    startToAnswerMs: Math.round(answered - t0),
    watchReadyMs: Math.round(ready - tWatch),
    rssMiB: Math.round(process.memoryUsage().rss / 1048576),
    answeredAtMs: Math.round(answered - tWatch),
    topBlocks: top,
  };
  await e.close();
  clearInterval(probe);
  process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((err) => {
  process.stderr.write(String((err as Error).stack ?? err) + '\n');
  process.exit(1);
});
