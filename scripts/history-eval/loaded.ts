/**
 * The evaluation's snapshots loaded for offline study (tune.ts, calibrate.ts): each snapshot's
 * ranking index and declarations built once from the evaluation's cached trees and indexes
 * (evaluate.ts makes them) and kept in memory, the engine closed.
 */
import * as path from 'node:path';
import { Engine } from '../../server/src/nav/engine';
import type { Ranking } from '../../server/src/nav/ranking/fileRanking';
import type { Declaration, DeclarationSource } from '../../server/src/nav/ranking/rankQuestion';
import type { HistoryQuestion } from './build';
import { loadSets, rankingWithHistory } from './evaluate';
import { snapshot } from './snapshot';

export interface Loaded {
  repo: string;
  r: Ranking;
  src: DeclarationSource;
  questions: HistoryQuestion[];
}

/** All declarations of the snapshot in memory (the engine is closed after loading). */
function memoryDeclarations(e: Engine): DeclarationSource {
  const byFile = new Map<number, Declaration[]>();
  const byName = new Map<string, Set<number>>();
  for (const r of e.store.rows(`SELECT file_id, name, kind, line, end_line, container, depth FROM symbols ORDER BY file_id, line`)) {
    const id = r[0] as number;
    const d: Declaration = { name: String(r[1]), kind: String(r[2]), line: Number(r[3]), endLine: Number(r[4]), container: String(r[5] ?? ''), depth: Number(r[6]) };
    let l = byFile.get(id);
    if (!l) byFile.set(id, (l = []));
    l.push(d);
    let s = byName.get(d.name);
    if (!s) byName.set(d.name, (s = new Set()));
    s.add(id);
  }
  const paths = new Map(e.catalog().all().map((f) => [f.id, f.path]));
  return {
    declarations: (id) => byFile.get(id) ?? [],
    declaring(names) {
      const out = new Map<number, string[]>();
      for (const n of names) for (const id of byName.get(n) ?? []) out.set(id, [...(out.get(id) ?? []), n]);
      return out;
    },
    pathOf: (id) => paths.get(id),
  };
}

export async function loadSnapshots(repos: string[] | undefined, scratch: string, mirrorRoot = '/work/.mirror'): Promise<Loaded[]> {
  const out: Loaded[] = [];
  for (const set of loadSets(repos)) {
    for (const snap of set.snapshots) {
      const tag = `${set.repo}/${snap.commit.slice(0, 12)}`;
      const tree = await snapshot(path.join(mirrorRoot, set.repo, 'repo'), snap.commit, path.join(scratch, 'trees', tag), true);
      const e = await Engine.open({ workspaceRoot: tree.dir, indexRoot: path.join(scratch, 'idx', tag) });
      try {
        await e.refresh();
        const r = await rankingWithHistory(e, (m) => process.stderr.write(`  ${tag}: ${m}\n`));
        out.push({ repo: set.repo, r, src: memoryDeclarations(e), questions: snap.questions });
        process.stderr.write(`  loaded ${tag}: ${r.files} files, ${snap.questions.length} questions, history ${r.history.commits} commits${r.history.unavailable ? ` (${r.history.unavailable})` : ''}\n`);
      } finally {
        await e.close();
      }
    }
  }
  return out;
}
