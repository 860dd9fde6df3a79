import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { EditorAnswer, EditorLocation } from '../../../server/src/protocol/protocol';
import { at, folder, note, readyEngine, waitFor } from './helpers';

const GENERATED = 3_000;

describe('a language service that is still loading (TypeScript, 3,000 new files)', () => {
  const dir = (): string => path.join(folder().uri.fsPath, 'src', 'gen');

  after(() => fs.rmSync(dir(), { recursive: true, force: true }));

  it('partial references are labelled with gaps until the full set arrives, never presented as complete', async function () {
    this.timeout(180_000);
    const engine = await readyEngine();
    fs.mkdirSync(dir(), { recursive: true });
    for (let i = 0; i < GENERATED; i++) {
      fs.writeFileSync(path.join(dir(), `m${i}.ts`), `import { Square } from '../shapes';\nexport const s${i} = new Square(${i});\n`);
    }
    // The editor learns of the files through its file watcher (~100 ms here); before that nobody can know.
    await waitFor('the bridge to hear of the new files', () => !engine.bridge.isWarm('typescript'), 30_000);
    const full = 4 + 2 * GENERATED; // declaration, import and two calls in main.ts, import and call per generated file
    const decl = at('src/shapes.ts', 'Square');
    const seen: string[] = [];
    let partials = 0;
    const started = Date.now();
    for (;;) {
      const a = (await engine.bridge.answer({ op: 'references', language: 'typescript', args: { ...decl, includeDeclaration: true }, timeoutMs: 3_000 })) as EditorAnswer<EditorLocation[]>;
      assert.notEqual(a.kind, 'error', JSON.stringify(a));
      if (a.kind === 'unavailable') {
        // Honest too: the service did not answer in time and says it is loading.
        assert.equal(a.state, 'loading', JSON.stringify(a));
        seen.push(`${Date.now() - started} ms: unavailable (loading)`);
        partials++;
        continue;
      }
      if (a.kind !== 'ok') return;
      seen.push(`${Date.now() - started} ms: ${a.value.length} rows${a.gaps ? ' (gaps)' : ''}`);
      if (a.gaps && a.gaps.length > 0) {
        // Labelled as possibly incomplete. It may already hold every row: the bridge cannot know that
        // until the service shows it has caught up, and saying so is the honest answer.
        assert.match(a.gaps[0]!, /had not (shown that its project is loaded|caught up)/);
        assert.ok(a.value.length <= full, `more rows than exist (${a.value.length}/${full})`);
        partials++;
      } else {
        // Presented as complete: it must be complete.
        assert.equal(a.value.length, full, `an incomplete answer (${a.value.length}/${full}) was presented as complete:\n${seen.join('\n')}`);
        break;
      }
      assert.ok(Date.now() - started < 150_000, `no complete answer within 150 s:\n${seen.join('\n')}`);
    }
    note(`answers while loading: ${seen.join('; ')}`);
    assert.ok(partials > 0, `the service never answered partially (loading was too fast to observe):\n${seen.join('\n')}`);
    assert.equal(engine.bridge.isWarm('typescript'), true);
  });
});
