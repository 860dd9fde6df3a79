/**
 * The index hooks every engine runs by default, in order. A layer that stores rows derived from
 * files (symbols, project graph) adds its hook here — one line per layer.
 */
import type { IndexHook } from './indexer';
import { projectsHook } from './projectsHook';
import { symbolsHook } from './symbolsHook';

export function defaultHooks(): IndexHook[] {
  return [projectsHook(), symbolsHook()];
}
