/**
 * config_lookup: a configuration key → where it is set in the workspace's configuration files
 * (appsettings*.json, launchSettings.json, global.json, package.json, tsconfig*.json,
 * Directory.Build.*, Directory.Packages.props, *.props, NuGet.config). A key written as a .NET
 * configuration path ("Logging:LogLevel:Default", or "Logging__LogLevel__Default") is matched
 * against the JSON structure, so nested objects are found; other keys are matched as text.
 */
import * as path from 'node:path';
import { getLocation } from 'jsonc-parser/lib/esm/main';
import { MAX_CONFIG_SCAN_HITS } from '../core/limits';
import { isToolError } from '../core/errors';
import type { Engine } from './engine';
import { projectGraph } from './projects';
import { searchText, type TextHit } from './textSearch';

export const CONFIG_GLOB =
  '**/{appsettings*.json,launchSettings.json,global.json,package.json,tsconfig*.json,jsconfig*.json,Directory.Build.props,Directory.Build.targets,Directory.Packages.props,*.props,NuGet.config,nuget.config,NuGet.Config}';

export type ConfigFileKind = 'appsettings' | 'launchSettings' | 'global.json' | 'package.json' | 'tsconfig' | 'msbuild' | 'nuget';

export interface ConfigHit {
  path: string;
  line: number;
  column: number;
  preview: string;
  fileKind: ConfigFileKind;
  /** For JSON files: the full key path at the hit, ':'-joined (as .NET configuration spells it). */
  keyPath?: string;
  /** The project whose folder holds the file (deepest), when there is one. */
  project?: string;
}

export interface ConfigLookup {
  hits: ConfigHit[];
  truncated?: 'deadline' | 'cap' | 'limit';
}

export function configFileKind(rel: string): ConfigFileKind {
  const b = path.posix.basename(rel).toLowerCase();
  if (b.startsWith('appsettings')) return 'appsettings';
  if (b === 'launchsettings.json') return 'launchSettings';
  if (b === 'global.json') return 'global.json';
  if (b === 'package.json') return 'package.json';
  if (b.startsWith('tsconfig') || b.startsWith('jsconfig')) return 'tsconfig';
  if (b === 'nuget.config') return 'nuget';
  return 'msbuild';
}

export async function configLookup(engine: Engine, key: string, deadlineAt: number): Promise<ConfigLookup> {
  const segments = key.includes(':') ? key.split(':') : key.includes('__') ? key.split('__') : [key];
  const last = segments[segments.length - 1]!.trim();
  const r = await searchText(engine, { query: last, mode: 'literal', caseMode: 'insensitive', pathGlob: CONFIG_GLOB, offset: 0, limit: MAX_CONFIG_SCAN_HITS, deadlineAt });
  const g = projectGraph(engine);
  const projectDirs = g ? g.projects.filter((p) => p.status !== 'failed' || p.fileCount > 0).map((p) => ({ id: p.id, dir: path.posix.dirname(p.id) })) : [];
  const texts = new Map<string, string | undefined>();
  const hits: ConfigHit[] = [];
  const seenLines = new Set<string>();
  for (const h of r.hits) {
    // One row per line (an XML element names its key twice: <Key>…</Key>).
    const lineKey = `${h.path}:${h.line}`;
    if (seenLines.has(lineKey)) continue;
    const fileKind = configFileKind(h.path);
    const hit: ConfigHit = { path: h.path, line: h.line, column: h.column, preview: h.preview, fileKind };
    if (h.path.endsWith('.json')) {
      const keyPath = jsonKeyPath(engine, texts, h);
      if (keyPath !== undefined) hit.keyPath = keyPath.join(':');
      if (segments.length > 1) {
        // A configuration path must match the structure, not just the last word.
        if (!keyPath || !endsWithPath(keyPath, segments)) continue;
      }
    } else if (segments.length > 1) {
      continue;
    }
    const owner = owningProject(projectDirs, h.path);
    if (owner) hit.project = owner;
    seenLines.add(lineKey);
    hits.push(hit);
  }
  // A total order (path, line, column): pages and repeated lookups list the same rows alike.
  hits.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line || a.column - b.column));
  const out: ConfigLookup = { hits };
  if (r.truncated) out.truncated = r.truncated;
  return out;
}

function jsonKeyPath(engine: Engine, texts: Map<string, string | undefined>, h: TextHit): string[] | undefined {
  if (!texts.has(h.path)) {
    try {
      texts.set(h.path, engine.policy.readFile(h.path).bytes.toString('utf8'));
    } catch (e) {
      if (!isToolError(e)) throw e;
      texts.set(h.path, undefined);
    }
  }
  const text = texts.get(h.path);
  if (text === undefined) return undefined;
  const offset = offsetOf(text, h.line, h.column);
  if (offset === undefined) return undefined;
  const loc = getLocation(text, offset);
  return loc.path.map((p) => String(p));
}

/** UTF-16 offset of a 1-based line and 1-based column (columns count UTF-16 units here). */
function offsetOf(text: string, line: number, column: number): number | undefined {
  let off = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', off);
    if (nl < 0) return undefined;
    off = nl + 1;
  }
  return off + column - 1 + 1; // inside the matched token, so a key resolves to itself
}

function endsWithPath(keyPath: string[], segments: string[]): boolean {
  if (keyPath.length < segments.length) return false;
  const tail = keyPath.slice(keyPath.length - segments.length);
  return tail.every((k, i) => k.toLowerCase() === segments[i]!.trim().toLowerCase());
}

function owningProject(projects: { id: string; dir: string }[], file: string): string | undefined {
  let best: { id: string; dir: string } | undefined;
  for (const p of projects) {
    const prefix = p.dir === '.' ? '' : p.dir + '/';
    if (file.startsWith(prefix) && (!best || p.dir.length > best.dir.length)) best = p;
  }
  return best?.id;
}
