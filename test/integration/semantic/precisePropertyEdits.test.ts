/**
 * Property: after random edits across the projects of a generated workspace (a type renamed
 * everywhere, a method's signature changed, a file's declarations moved to another file, a file
 * deleted, a project reference removed), an engine answering from precise facts recorded before
 * the edits — imported (a `scip export` of the tree before) or persisted (the persisted layer of an
 * engine on the same index) — answers every question exactly as a cold live Roslyn host does, row
 * for row. Questions: every definition / references / implementations position the facts hold
 * in a document the edits left unchanged (sampled). One host at a time; two seeds.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Engine } from '../../../server/src/nav/engine';
import { semanticService } from '../../../server/src/nav/semanticService';
import { runScipExport } from '../../../server/src/scipCommand';
import { scipFiles } from '../../../server/src/semantic/precise/preciseFacts';
import { locateRoslynHost } from '../../../server/src/semantic/roslyn/roslynHost';
import { cachedWorkspace } from '../../fixtures/generate/cachedWorkspace';
import { Rng } from '../../fixtures/generate/rng';
import { compareWithLive, questionsOf } from './preciseCompare';

const hostBuilt = locateRoslynHost().ok;
const QUESTIONS_PER_SEED = 90;

function csFiles(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
    if (e.name === 'obj' || e.name === 'bin' || e.name.startsWith('.')) continue;
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...csFiles(root, r));
    else if (/\.(cs|csproj)$/.test(e.name)) out.push(r);
  }
  return out.sort();
}

/** Applies one edit of each kind at seeded places; returns what it did and the paths it touched. */
function randomEdits(root: string, rng: Rng): { done: string[]; touched: Set<string> } {
  const done: string[] = [];
  const touched = new Set<string>();
  const read = (p: string) => fs.readFileSync(path.join(root, p), 'utf8');
  const write = (p: string, s: string) => (fs.writeFileSync(path.join(root, p), s), touched.add(p));
  const sources = () => csFiles(root).filter((p) => p.endsWith('.cs') && !/\.g\.cs$/.test(p));

  // a type renamed in every file that names it
  const types = sources().flatMap((p) => [...read(p).matchAll(/\b(?:class|interface|record) ([A-Z]\w+)/g)].map((m) => m[1]!));
  const named = (n: string) => sources().filter((p) => new RegExp(`\\b${n}\\b`).test(read(p)));
  const widely = [...new Set(types)].filter((n) => named(n).length >= 2);
  const type = rng.pick(widely);
  for (const p of named(type)) write(p, read(p).replace(new RegExp(`\\b${type}\\b`, 'g'), `${type}Renamed`));
  done.push(`renamed ${type} in ${named(`${type}Renamed`).length} files`);

  // a method's signature: one more parameter (with a default, so its calls still compile)
  const methods = sources().flatMap((p) => [...read(p).matchAll(/public (?:async )?(?:virtual )?[\w<>?,. ]+ ([A-Z]\w+)\(([^()]*)\)\s*(?:\{|=>|\n)/g)].map((m) => ({ p, name: m[1]!, whole: m[0]!, params: m[2]! })));
  const m = rng.pick(methods);
  write(m.p, read(m.p).replace(m.whole, m.whole.replace(`(${m.params})`, `(${m.params}${m.params.trim() ? ', ' : ''}int extraArg = 0)`)));
  done.push(`signature of ${m.name} in ${m.p}`);

  // Files of the project every other one references are not moved or deleted: that changes its
  // file set, so every compilation's facts stop holding (right, but nothing left to compare).
  const projects = csFiles(root).filter((p) => p.endsWith('.csproj'));
  const referenced = (proj: string) => projects.filter((q) => read(q).includes(path.posix.basename(proj))).length;
  const hub = path.posix.dirname([...projects].sort((x, y) => referenced(y) - referenced(x))[0]!);
  const outsideHub = (p: string) => !p.startsWith(`${hub}/`);

  // a file's declarations moved to a new file in another folder of its project
  const movable = sources().filter((p) => !touched.has(p) && outsideHub(p) && /\bclass\b/.test(read(p)));
  const from = rng.pick(movable);
  const to = `${path.posix.dirname(from)}/Moved/${path.posix.basename(from, '.cs')}Moved.cs`;
  fs.mkdirSync(path.join(root, path.dirname(to)), { recursive: true });
  write(to, read(from));
  fs.rmSync(path.join(root, from));
  touched.add(from);
  done.push(`moved ${from} → ${to}`);

  // a file deleted with its declarations
  const del = rng.pick(sources().filter((p) => !touched.has(p) && outsideHub(p)));
  fs.rmSync(path.join(root, del));
  touched.add(del);
  done.push(`deleted ${del}`);

  // a project reference removed
  const projs = projects.filter((p) => /<ProjectReference /.test(read(p)));
  const proj = rng.pick(projs);
  const refs = [...read(proj).matchAll(/\s*<ProjectReference Include="[^"]*"\s*\/>/g)].map((x) => x[0]);
  const ref = rng.pick(refs);
  write(proj, read(proj).replace(ref, ''));
  done.push(`removed ${ref.trim()} from ${proj}`);
  return { done, touched };
}

(hostBuilt ? describe : describe.skip)('precise facts after random edits across projects equal a cold live host (real Roslyn host)', function () {
  this.timeout(1_200_000);
  const base = cachedWorkspace('csharp', { projects: 12, seed: 1, sizeFactor: 0.2 }).root;

  for (const [seed, source] of [
    [1, 'imported'],
    [2, 'persisted'],
  ] as const) {
    it(`seed ${seed}: ${source} facts`, async () => {
      const tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sextant-precise-prop-')));
      const root = path.join(tmp, 'ws');
      const indexRoot = path.join(tmp, 'index');
      fs.cpSync(base, root, { recursive: true, filter: (s) => path.basename(s) !== '.git' });
      try {
        let facts: string[];
        if (source === 'imported') {
          facts = [path.join(tmp, 'before.scip')];
          await runScipExport({ engine: { workspaceRoot: root, indexRoot: '' }, out: facts[0]!, argv: [], log: () => undefined });
        } else {
          const first = await Engine.open({ workspaceRoot: root, indexRoot, gitAtOpen: false });
          try {
            await first.refresh();
            const s = semanticService(first, { scip: [], roslynPrewarm: false, tsPrewarm: false, precisePersist: { idleMs: 3_600_000 } });
            const anyCs = csFiles(root).find((p) => p.endsWith('.cs'))!;
            await s.roslyn!.request('definition', 'csharp', { path: anyCs, line: 1, column: 1 }, { signal: new AbortController().signal, deadline: Date.now() + 120_000, waitForReadyMs: 120_000 });
            assert.ok((await s.persisted!.runOnce()) >= 10, 'projects persisted');
          } finally {
            await first.close();
          }
          facts = scipFiles(path.join(indexRoot, 'precise'));
        }
        const { done, touched } = randomEdits(root, Rng.of(seed, 'precise-edits'));
        const rng = Rng.of(seed, 'precise-questions');
        const all = questionsOf(facts, (p) => !touched.has(p) && fs.existsSync(path.join(root, p)));
        const questions = rng.sample(all, Math.min(QUESTIONS_PER_SEED, all.length));
        const engine = await Engine.open({ workspaceRoot: root, indexRoot: source === 'persisted' ? indexRoot : '', gitAtOpen: false });
        try {
          await engine.refresh();
          const service = semanticService(engine, { scip: source === 'imported' ? facts : [], roslynPrewarm: false, tsPrewarm: false, precisePersist: false });
          await service.precise.ready;
          const c = await compareWithLive(service, service.roslyn!, 'csharp', questions);
          const what = `edits: ${done.join('; ')}; ${c.store} answered from the facts alone, ${c.merged} merged with live rows, ${c.live} live`;
          console.log(`      seed ${seed} (${source}) ${what}`);
          assert.deepEqual(c.differences, [], what);
          assert.ok(c.store > 0 && c.merged > 0, what);
        } finally {
          await engine.close();
        }
      } finally {
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    });
  }
});
