/**
 * Limits of the extension host side. (The engine's limits live in server/src/core/limits.ts,
 * which src/ may not import; the user-tunable ones reach the engine through settings.)
 */

/** Call/type hierarchy items kept so the engine can ask for their calls; oldest dropped first. */
export const MAX_HIERARCHY_HANDLES = 5_000;
/** Pause between two rounds of the stability check of a warming language service. */
export const SETTLE_INTERVAL_MS = 300;
/**
 * While a language service warms up, an empty answer is re-asked for up to this long (a service
 * that has not loaded the program answers nothing rather than "loading").
 */
export const EMPTY_GRACE_MS = 3_000;
/** Share of a bridge query's time that the stability check may use. */
export const SETTLE_SHARE = 0.8;
/** Settled answers in a row after which a language is trusted on the first round. */
export const WARM_AFTER_SETTLED = 3;
/** Agent activity rows kept in the view (newest first). */
export const MAX_ACTIVITY_ROWS = 200;
/** Engine restarts allowed within RESTART_WINDOW_MS before the extension gives up. */
export const MAX_ENGINE_RESTARTS = 5;
export const RESTART_WINDOW_MS = 3 * 60 * 1000;
/** Status bar / view refresh throttle for progress notifications. */
export const PROGRESS_THROTTLE_MS = 150;
