/** The walk's own options (small, so that the CLI launcher can compare them without loading the walk). */
import type { IgnoreOptions } from './ignoreRules';

export interface DiscoveryOptions extends IgnoreOptions {
  maxFileBytes?: number;
  maxFiles?: number;
}

/** Only the walk's own options of `o` (a refresh's options also hold hooks and callbacks, which cannot go to a worker). */
export function discoveryOptionsOf(o: DiscoveryOptions): DiscoveryOptions {
  const d: DiscoveryOptions = {};
  if (o.exclude) d.exclude = o.exclude;
  if (o.include) d.include = o.include;
  if (o.useGitignore !== undefined) d.useGitignore = o.useGitignore;
  if (o.maxFiles !== undefined) d.maxFiles = o.maxFiles;
  if (o.maxFileBytes !== undefined) d.maxFileBytes = o.maxFileBytes;
  return d;
}
