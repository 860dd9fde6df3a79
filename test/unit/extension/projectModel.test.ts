import * as assert from 'node:assert/strict';
import { callView, modeInWords } from '../../../src/graph/callView';
import { clusterKeyOf, focusProjectGraph, projectOfFile } from '../../../src/graph/projectModel';
import { layeredProjects, projectNodes } from '../../extension/fixtures/layeredProjects';

const P = (name: string, references: string[], isTest = false) => ({ name, path: `src/${name}/${name}.csproj`, isTest, references: references.map((r) => `src/${r}/${r}.csproj`) });
const model = projectNodes([P('App', ['Core', 'Shared', 'Analyzers']), P('Core', ['Shared', 'Analyzers']), P('Shared', ['Analyzers']), P('Analyzers', []), P('AppTests', ['App', 'Analyzers'], true), P('Other', ['Analyzers'])]);
const base = { focus: 'src/App/App.csproj', depth: 2, direction: 'both' as const, production: true, test: true, reduce: true, maxNodes: 100 };
const edges = (v: ReturnType<typeof focusProjectGraph>): string[] => v.edges.map((e) => `${e.from.split('/')[1]}>${e.to.split('/')[1]}`).sort();

describe('project graph model (extension side)', () => {
  it('transitive reduction hides references implied by a longer path and counts them', () => {
    const v = focusProjectGraph(model, base);
    assert.deepEqual(edges(v), ['App>Core', 'AppTests>App', 'Core>Shared', 'Shared>Analyzers']);
    assert.equal(v.hidden, 4);
    assert.deepEqual(v.summary, [
      'Drawn: 5 projects and 4 references — App with its dependencies and dependents to depth 2.',
      'Not drawn: 4 references implied by a longer path hidden (transitive reduction).',
    ]);
    const all = focusProjectGraph(model, { ...base, reduce: false });
    assert.equal(all.edges.length, 8);
  });

  it('depth, direction, filters and the node limit say what they cut', () => {
    const d1 = focusProjectGraph(model, { ...base, depth: 1, direction: 'dependencies' });
    assert.deepEqual(d1.nodes.map((n) => n.label).sort(), ['Analyzers', 'App', 'Core', 'Shared']);
    const noTests = focusProjectGraph(model, { ...base, test: false });
    assert.ok(!noTests.nodes.some((n) => n.label === 'AppTests'));
    assert.match(noTests.summary[1]!, /1 test project hidden by the filter/);
    const capped = focusProjectGraph(model, { ...base, maxNodes: 2 });
    assert.equal(capped.nodes.length, 2);
    assert.equal(capped.truncated, true);
    assert.match(capped.summary[1]!, /3 farther projects not drawn \(limit 2 projects\)/);
    assert.equal(focusProjectGraph(model, { ...base, focus: 'nope' }).nodes.length, 0);
  });

  it('every drawn edge is a reference of the model, at 3,000 projects too', () => {
    const big = projectNodes(layeredProjects(3000));
    const refs = new Set(big.flatMap((p) => p.references.map((q) => `${p.path}>${q}`)));
    const focus = big.find((p) => p.path.includes('Core.M0000'))!.path;
    const v = focusProjectGraph(big, { ...base, focus, maxNodes: 200 });
    assert.equal(v.nodes.length, 200);
    for (const e of v.edges) assert.ok(refs.has(`${e.from}>${e.to}`));
    const ids = new Set(v.nodes.map((n) => n.id));
    for (const e of v.edges) assert.ok(ids.has(e.from) && ids.has(e.to));
  });

  it('above the cluster size, projects of one folder are one node that expands; its edges stand for real references', () => {
    const big = projectNodes(layeredProjects(3000));
    const refs = new Set(big.flatMap((p) => p.references.map((q) => `${p.path}>${q}`)));
    const focus = big.find((p) => p.path.includes('Core.M0000'))!.path;
    const flat = focusProjectGraph(big, { ...base, focus, maxNodes: 200 });
    const v = focusProjectGraph(big, { ...base, focus, maxNodes: 200, clusterAbove: 60 });
    const clusters = v.nodes.filter((n) => n.category === 'cluster');
    assert.ok(clusters.length >= 3, v.nodes.map((n) => n.label).join(', '));
    // Every drawn project is drawn once: alone or inside exactly one cluster; the focus alone.
    const shown = v.nodes.flatMap((n) => n.members ?? [n.id]).sort();
    assert.deepEqual(shown, flat.nodes.map((n) => n.id).sort());
    assert.ok(v.nodes.some((n) => n.id === focus && n.focus && n.category !== 'cluster'));
    for (const c of clusters) {
      assert.ok(c.members!.length >= 3);
      for (const m of c.members!) assert.equal(clusterKeyOf(m), c.folder);
    }
    // An edge stands for at least one reference between the projects it joins, and its count is exact.
    const ends = (id: string): string[] => v.nodes.find((n) => n.id === id)!.members ?? [id];
    const flatEdges = new Set(flat.edges.map((e) => `${e.from}>${e.to}`));
    for (const e of v.edges) {
      const pairs = ends(e.from).flatMap((a) => ends(e.to).map((b) => `${a}>${b}`));
      assert.ok(pairs.some((x) => refs.has(x)), `${e.from}>${e.to}`);
      assert.equal(e.count ?? 1, pairs.filter((x) => flatEdges.has(x)).length, `${e.from}>${e.to}`);
    }
    const m = /^Drawn: (\d+) projects?, (\d+) folder clusters? \((\d+) projects\) and (\d+) references? — /.exec(v.summary[0]!);
    assert.ok(m, v.summary[0]);
    assert.deepEqual(m.slice(1).map(Number), [v.nodes.length - clusters.length, clusters.length, shown.length - (v.nodes.length - clusters.length), v.edges.length]);
    assert.match(v.summary[1]!, /^Clusters \(click one to expand it\): src\/\w+\/ \d+/);
    const clusterOf = new Map(clusters.flatMap((c) => c.members!.map((id) => [id, c.id] as const)));
    const inside = flat.edges.filter((e) => clusterOf.get(e.from) !== undefined && clusterOf.get(e.from) === clusterOf.get(e.to)).length;
    if (inside > 0) assert.match(v.summary[2]!, new RegExp(`${inside} references? between projects of one cluster`));
    else assert.doesNotMatch(v.summary[2]!, /of one cluster/);
    assert.equal(v.edges.reduce((a, e) => a + (e.count ?? 1), 0) + inside, flat.edges.length, 'every reference of the flat graph is drawn, inside a cluster edge, or counted');

    // Expanding the largest cluster draws its projects one by one, each marked with its folder.
    const largest = clusters.sort((a, b) => b.members!.length - a.members!.length)[0]!;
    const open = focusProjectGraph(big, { ...base, focus, maxNodes: 200, clusterAbove: 60, expanded: [largest.folder!] });
    assert.ok(!open.nodes.some((n) => n.id === largest.id));
    for (const id of largest.members!) assert.equal(open.nodes.find((n) => n.id === id)?.folder, largest.folder);
    // Below the size nothing is clustered.
    assert.ok(!focusProjectGraph(model, { ...base, clusterAbove: 60 }).nodes.some((n) => n.category === 'cluster'));
  });

  it('a project in an excluded folder is drawn as not indexed, not as failed', () => {
    const withExcluded = model.map((p) => (p.name === 'Shared' ? { ...p, status: 'failed' as const, notIndexed: true as const, reasons: ['the file exists but is not indexed'] } : p));
    const v = focusProjectGraph(withExcluded, base);
    const shared = v.nodes.find((n) => n.label === 'Shared')!;
    assert.equal(shared.category, 'excluded');
    assert.match(shared.detail, /not indexed \(excluded folder\)/);
    assert.doesNotMatch(shared.detail, /failed/);
  });

  it('finds the project of a file by its deepest folder', () => {
    assert.equal(projectOfFile(model, 'src/Core/Sub/File.cs')?.name, 'Core');
    assert.equal(projectOfFile(model, 'README.md'), undefined);
  });

  it('call graph: same-named symbols stay apart, heuristic calls are marked, the mode is in words', () => {
    const v = callView(
      {
        nodes: [
          { id: 'a.cs:3:5', label: 'Save', kind: 'method', path: 'src/a.cs', line: 3, column: 5, root: true },
          { id: 'b.cs:9:5', label: 'Save', kind: 'method', path: 'src/b.cs', line: 9, column: 5 },
          { id: 'c.cs:1:1', label: 'Run', kind: 'method', path: 'src/c.cs', line: 1, column: 1 },
        ],
        edges: [
          { from: 'c.cs:1:1', to: 'a.cs:3:5', kind: 'calls' },
          { from: 'b.cs:9:5', to: 'a.cs:3:5', kind: 'calls (heuristic)' },
        ],
        truncated: false,
        mode: 'heuristic_no_precise',
        summary: 'calls around Save, depth 1: 3 functions, 2 calls (no language server for csharp; heuristic_no_precise; run scripts/setup.sh)',
      },
      { name: 'Save', depth: 1, direction: 'incoming' },
    );
    assert.deepEqual(v.nodes.map((n) => n.label), ['Save (a.cs:3)', 'Save (b.cs:9)', 'Run']);
    assert.deepEqual(v.edges.map((e) => e.style), ['exact', 'heuristic']);
    assert.equal(v.summary[0], 'Drawn: 3 functions and 2 calls (1 exact, 1 heuristic) — callers of Save to depth 1.');
    assert.equal(v.summary[1], `${modeInWords('heuristic_no_precise')} Why: no language server for csharp.`);
    assert.ok(!v.summary.join(' ').includes('heuristic_no_precise'));
  });
});
