/** Names of the files in an index root (no imports: the CLI launcher reads them before loading the engine). */
export const INDEX_FILE = 'index.db';
/** `sextant index`'s record of its last complete run (index/warmState.ts). */
export const WARM_STATE_FILE = 'warm.json';
