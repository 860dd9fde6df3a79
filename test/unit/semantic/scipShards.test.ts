/**
 * `sextant scip export --shard K/N`: which projects a shard exports — every project in exactly one
 * shard, dependencies first, and shards balanced by projects (what an export's memory and time
 * follow), not by files.
 */
import * as assert from 'node:assert/strict';
import type { ProjectGraph } from '../../../server/src/projects/ProjectGraph';
import { shardProjects } from '../../../server/src/scipCommand';

/** 10 large libraries (20 files each) and 30 small top-level projects (1 file each) referencing them. */
function graph(): { g: ProjectGraph; ids: string[] } {
  const ids: string[] = [];
  const files = new Map<string, { project: string }[]>();
  const edges: { from: string; to: string; kind: string }[] = [];
  for (let i = 0; i < 10; i++) {
    const id = `lib/L${i}/L${i}.csproj`;
    ids.push(id);
    for (let f = 0; f < 20; f++) files.set(`lib/L${i}/F${f}.cs`, [{ project: id }]);
  }
  for (let i = 0; i < 30; i++) {
    const id = `app/A${String(i).padStart(2, '0')}/A${i}.csproj`;
    ids.push(id);
    files.set(`app/A${String(i).padStart(2, '0')}/Program.cs`, [{ project: id }]);
    edges.push({ from: id, to: `lib/L${i % 10}/L${i % 10}.csproj`, kind: 'projectReference' });
  }
  return { g: { files, edges } as unknown as ProjectGraph, ids };
}

describe('scip export shards', () => {
  it('every project is in one shard, dependencies first, and shards are balanced by projects, not files', () => {
    const { g, ids } = graph();
    const shards = [1, 2].map((k) => shardProjects(g, ids, k, 2));
    assert.deepEqual([...shards[0]!, ...shards[1]!].sort(), [...ids].sort());
    // a project's libraries come in its shard or an earlier one
    const shardOf = new Map(shards.flatMap((s, i) => s.map((id) => [id, i] as const)));
    for (const e of (g as unknown as { edges: { from: string; to: string }[] }).edges) assert.ok(shardOf.get(e.to)! <= shardOf.get(e.from)!, `${e.to} after ${e.from}`);
    // by files the second shard had 34 projects to the first's 6
    const [a, b] = shards.map((s) => s.length);
    assert.ok(Math.max(a!, b!) / Math.min(a!, b!) <= 1.6, `${a} and ${b} projects`);
  });
});
