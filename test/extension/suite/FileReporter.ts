/**
 * A spec-style mocha reporter that writes each line to stdout and, when SEXTANT_EXT_TEST_LOG is
 * set, appends it to that file (the extension host's stdout is not always visible to the runner,
 * e.g. inside code-server). Ends with the plain line `N passed, N failed`.
 */
import * as fs from 'node:fs';
import Mocha from 'mocha';

const { EVENT_RUN_END, EVENT_SUITE_BEGIN, EVENT_SUITE_END, EVENT_TEST_FAIL, EVENT_TEST_PASS, EVENT_TEST_PENDING } =
  Mocha.Runner.constants;

export class FileReporter extends Mocha.reporters.Base {
  constructor(runner: Mocha.Runner, options?: Mocha.MochaOptions) {
    super(runner, options);
    const logFile = process.env.SEXTANT_EXT_TEST_LOG;
    let depth = 0;
    const failures: { title: string; err: Error }[] = [];
    const out = (line: string): void => {
      process.stdout.write(line + '\n');
      if (logFile) fs.appendFileSync(logFile, line + '\n');
    };
    const pad = (): string => '  '.repeat(depth);
    runner.on(EVENT_SUITE_BEGIN, (suite: Mocha.Suite) => {
      if (suite.title) out(pad() + suite.title);
      depth++;
    });
    runner.on(EVENT_SUITE_END, () => {
      depth--;
    });
    runner.on(EVENT_TEST_PASS, (test: Mocha.Test) => out(`${pad()}✔ ${test.title} (${test.duration ?? 0} ms)`));
    runner.on(EVENT_TEST_PENDING, (test: Mocha.Test) => out(`${pad()}- ${test.title} (pending)`));
    runner.on(EVENT_TEST_FAIL, (test: Mocha.Test, err: Error) => {
      failures.push({ title: test.fullTitle(), err });
      out(`${pad()}✘ ${failures.length}) ${test.title}`);
    });
    runner.once(EVENT_RUN_END, () => {
      failures.forEach((f, i) => out(`\n${i + 1}) ${f.title}\n${f.err.stack ?? f.err.message}`));
      const s = this.stats;
      out(`\n${s.passes} passed, ${s.failures} failed${s.pending ? `, ${s.pending} skipped` : ''} (${s.duration ?? 0} ms)`);
    });
  }
}
