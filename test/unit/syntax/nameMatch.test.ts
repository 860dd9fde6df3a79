import * as assert from 'node:assert/strict';
import { SymbolNames, splitWords, wordInitials } from '../../../server/src/index/symbolNames';
import { requiredLiterals } from '../../../server/src/nav/syntaxSymbols';
import { camelSkips, camelSkipsPacked, matchCamel, matchFuzzy, matchPrefix, matchSubstring, prepareQuery, type Matcher } from '../../../server/src/nav/syntaxNameMatch';

function dict(...names: string[]): SymbolNames {
  const d = new SymbolNames();
  for (const n of names) d.add(n);
  return d;
}

function matches(m: Matcher, d: SymbolNames, q: string): string[] {
  const p = prepareQuery(q);
  return d.names
    .map((n, i) => ({ n, r: m(d, i, p) }))
    .filter((x) => x.r >= 0)
    .sort((a, b) => a.r - b.r)
    .map((x) => x.n);
}

describe('syntax: symbol name matching', () => {
  it('splits identifiers into words the way IDEs do', () => {
    assert.deepEqual(splitWords('GetRequiredService'), ['Get', 'Required', 'Service']);
    assert.deepEqual(splitWords('XMLHttpRequest'), ['XML', 'Http', 'Request']);
    assert.deepEqual(splitWords('get_required_service2'), ['get', 'required', 'service', '2']);
    assert.deepEqual(splitWords('_fieldName'), ['field', 'Name']);
    assert.equal(wordInitials('IServiceProvider'), 'isp');
  });

  it('camelCase: GRS, GetReqServ and grs find GetRequiredService; ranked before looser matches', () => {
    const d = dict('GetRequiredService', 'GetRequiredServiceCore', 'GetService', 'GreatRiverSystem', 'RegisterServices', 'grs');
    const grs = matches(matchCamel, d, 'GRS');
    assert.equal(grs[0], 'grs', 'an exact (case-insensitive) name first');
    assert.deepEqual(grs.slice(1, 3).sort(), ['GetRequiredService', 'GreatRiverSystem'], 'then names whose every word is hit, shorter first');
    assert.ok(matches(matchCamel, d, 'GetReqServ').includes('GetRequiredService'));
    assert.ok(!matches(matchCamel, d, 'GetReqServ').includes('GetService'));
    assert.ok(matches(matchCamel, d, 'reqServ').includes('GetRequiredService'), 'chunks may start at any word');
    assert.deepEqual(matches(matchCamel, d, 'RS'), ['RegisterServices', 'GreatRiverSystem', 'GetRequiredService', 'GetRequiredServiceCore'], 'fewer skipped words first');
  });

  it('camelCase word matching over the packed units equals the word-array search', () => {
    const names = ['GetRequiredService', 'XMLHttpRequest', 'get_required_service2', '_fieldName', 'IServiceProvider', 'GetGetGetter', 'ReqReqServiceServ', 'a', 'ABCDef', 'Über_Straße'];
    const d = dict(...names);
    const queries = ['grs', 'getreqser', 'xmlhttp', 'xhr', 'reqser', 'ggg', 'getgetter', 'gg', 'fieldn', 'isp', 'serv', 'a', 'abcd', 'abcdef', 'über', 'zzz', 'service2'];
    let compared = 0;
    names.forEach((_, i) => {
      for (const q of queries) {
        if (!d.packedWords[i]) continue;
        const p = prepareQuery(q);
        assert.equal(camelSkipsPacked(p.codes, d, i), camelSkips(d.wordsAt(i), p.ql), `${q} on ${names[i]}`);
        compared++;
      }
    });
    assert.ok(compared > 150);
    assert.equal(camelSkipsPacked(prepareQuery('reqser').codes, d, 0), 1, 'Get skipped');
  });

  it('regex prefilter: the text every match contains, never more', () => {
    assert.deepEqual(requiredLiterals('^Get.*Async$'), ['Async']);
    assert.deepEqual(requiredLiterals('Handler|Mapper'), ['Handler', 'Mapper']);
    assert.deepEqual(requiredLiterals('Asyn?c'), ['Asy'], 'an optional letter ends the run');
    assert.deepEqual(requiredLiterals('As{0,1}ync'), ['ync']);
    assert.deepEqual(requiredLiterals('Ser+vice'), ['vice'], 'a repeated letter ends the run after it');
    assert.deepEqual(requiredLiterals('A\\.B'), ['A.B'], 'an escaped dot is a plain character');
    assert.deepEqual(requiredLiterals('[|]Get'), ['Get'], 'a bar inside a class is no alternative');
    assert.equal(requiredLiterals('Get(User)?'), undefined, 'groups: no prefilter');
    assert.equal(requiredLiterals('ab|c'), undefined, 'an alternative without two plain characters: no prefilter');
    assert.equal(requiredLiterals('^I[A-Z]'), undefined);
    const names = ['GetUserAsync', 'GetAsync', 'SetAsync', 'A.B', 'AxB', 'Service', 'Serrvice', 'Asc', 'Async'];
    for (const src of ['^Get.*Async$', 'Asyn?c', 'Ser+vice', 'A\\.B', 'Get|Set']) {
      const re = new RegExp(src);
      const lits = requiredLiterals(src) ?? [];
      for (const n of names) if (re.test(n)) assert.ok(lits.some((l) => n.includes(l)), `${src} matches ${n} without its literal`);
    }
  });

  it('prefix, substring and fuzzy', () => {
    const d = dict('InvoiceService', 'InvoiceServiceTests', 'IInvoiceService', 'Invoice');
    assert.deepEqual(matches(matchPrefix, d, 'invoice'), ['Invoice', 'InvoiceService', 'InvoiceServiceTests']);
    assert.deepEqual(matches(matchSubstring, d, 'voiceserv'), ['InvoiceService', 'InvoiceServiceTests', 'IInvoiceService']);
    assert.ok(matches(matchFuzzy, d, 'invsvc').includes('InvoiceService'));
    assert.deepEqual(matches(matchFuzzy, d, 'xyz'), []);
    // typos: one edit for 4-7 letters, two from 8; a letter left out ranks before two edits
    const t = dict('WriteName1', 'WriteName18', 'GetUserService', 'GetUserServices', 'SetUserService');
    assert.equal(matches(matchFuzzy, t, 'Writeame18')[0], 'WriteName18');
    assert.deepEqual(matches(matchFuzzy, t, 'GetUsreService').slice(0, 2), ['GetUserService', 'GetUserServices'], 'whole name before a prefix of a longer one');
    assert.ok(!matches(matchFuzzy, t, 'GetUsreService').includes('SetUserService'), 'the first letter is kept');
    assert.deepEqual(matches(matchFuzzy, t, 'Wrte'), ['WriteName1', 'WriteName18'], 'letters in order');
    assert.deepEqual(matches(matchFuzzy, t, 'Wxt'), [], 'no typo allowed under 4 letters');
    assert.deepEqual(d.withPrefix('invoicex'), []);
    assert.deepEqual(d.withPrefix('invoice').map((i) => d.names[i]).sort(), ['Invoice', 'InvoiceService', 'InvoiceServiceTests']);
  });
});
