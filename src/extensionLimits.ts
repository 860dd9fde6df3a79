/**
 * Limits of the extension host side. (The engine's limits live in server/src/core/limits.ts,
 * which src/ may not import; the user-tunable ones reach the engine through settings.)
 */

/** Call/type hierarchy items kept so the engine can ask for their calls; oldest dropped first. */
export const MAX_HIERARCHY_HANDLES = 5_000;
/** Pause between two rounds while a cold language service's answer is suspect (bridge/settle.ts). */
export const SETTLE_INTERVAL_MS = 300;
/**
 * After workspace source or project files change, answers asked within this long are asked again:
 * the language service may still answer from the program it had (measured: ~100 ms after 3,000
 * new files TypeScript still gave the old 4 references; the next call blocked 8 s and gave 6,004).
 */
export const CHANGE_QUIET_MS = 1_500;
/** Share of a bridge query's time that re-asking a cold service may use. */
export const SETTLE_SHARE = 0.8;
/** Agent activity rows kept in the view (newest first). */
export const MAX_ACTIVITY_ROWS = 200;
/** Engine restarts allowed within RESTART_WINDOW_MS before the extension gives up. */
export const MAX_ENGINE_RESTARTS = 5;
export const RESTART_WINDOW_MS = 3 * 60 * 1000;
/** Status bar / view refresh throttle for progress notifications. */
export const PROGRESS_THROTTLE_MS = 150;
/**
 * While an editor language extension is installed but not active yet, how often the extension
 * re-checks it and tells the engine once it is (VS Code fires no event when an extension activates).
 */
export const AVAILABILITY_RECHECK_MS = 1_000;
/**
 * Projects drawn at most in the project graph (nearest to the focus first; the summary counts the
 * rest). A layered layout of more is slow to lay out (dagre grows faster than linearly) and not
 * readable; focus on another project or lower the depth to see farther ones.
 */
export const GRAPH_MAX_PROJECTS = 200;
/**
 * Above this many drawn projects the project graph groups the projects of one folder into a
 * cluster node that expands on click: at ~60 boxes a layered layout of a dense dependency graph
 * is already a tall column per layer that needs zooming to read at all.
 */
export const GRAPH_CLUSTER_ABOVE_PROJECTS = 60;
