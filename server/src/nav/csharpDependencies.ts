/** file_dependencies for C# files (placeholder until the semantic/heuristic resolution lands). */
import { ToolError } from '../core/errors';
import type { Engine } from './engine';
import type { DepQuery, FileDependencies } from './fileDependencies';

export async function csharpDependencies(_engine: Engine, rel: string, _q: DepQuery): Promise<FileDependencies> {
  throw new ToolError('UNSUPPORTED_LANGUAGE', `file_dependencies does not cover C# yet ('${rel}')`, 'use references on the file\'s types');
}
