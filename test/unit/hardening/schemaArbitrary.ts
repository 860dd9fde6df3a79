/**
 * fast-check arbitraries from a tool's JSON input schema (z.toJSONSchema output): mostly valid
 * arguments built from hostile values (traversal paths, control characters, catastrophic regexes,
 * huge strings, boundary numbers), plus near-valid and arbitrary junk to exercise validation.
 */
import fc from 'fast-check';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
}

/** Strings that have broken path sandboxes, regex engines, globs and parsers before. */
export const HOSTILE_STRINGS = [
  '../../../../etc/passwd',
  '/etc/passwd',
  '..',
  '.',
  '..foo.cs',
  'linkout/secret.txt',
  'linkout',
  'dangling',
  'pipe.cs',
  'huge.cs',
  'binary.bin',
  '.sextant/index.db',
  'src\\..\\..\\..\\x',
  '\\\\?\\C:\\Windows\\win.ini',
  '//./PhysicalDrive0',
  'C:\\Windows\\win.ini',
  '%2e%2e%2fetc%2fpasswd',
  'a\u0000b',
  'src/\n/x',
  '\u202e.cs',
  '**',
  '**/*',
  '*',
  '{a,b,c,{d,e,{f,g}}}/**/[!x]*',
  '!(a|b)',
  '(a+)+$',
  '(a+)+\\1$',
  '(?<=x)a',
  '(.*a){20}',
  '[',
  '\\',
  '((((((((((',
  'a{99999}',
  '^Get.*Async$',
  'InvoiceService',
  'Billing.Application.InvoiceService.CreateInvoiceAsync',
  'M:Billing.Application.InvoiceService.CreateInvoiceAsync(CreateInvoiceCommand)',
  'src/Billing/Application/InvoiceService.cs',
  'src/Billing/Application/Billing.Application.csproj',
  'src/Evil/Nested.cs',
  'src/Evil/Aaa.cs',
  '(invocation_expression) @call',
  '((identifier) @x (#match? @x "(a+)+$"))',
  '((identifier) @x (#match? @x "(a+)+\\\\1$"))',
  '@calls:GetRequiredService',
  '(ERROR) @e',
  '((((((((((((((((((((((((identifier))))))))))))))))))))))))',
  'csharp',
  'typescript',
  'cobol',
  'x'.repeat(1000),
  'é'.repeat(300),
  '💥'.repeat(200),
  ' ',
  '',
];

function stringArb(s: JsonSchema): fc.Arbitrary<string> {
  const min = s.minLength ?? 0;
  const max = Math.min(s.maxLength ?? 2000, 5000);
  const fits = (x: string) => x.length >= min && x.length <= max;
  const pool = HOSTILE_STRINGS.filter(fits);
  const long = fc.constant('y'.repeat(max));
  return fc.oneof(
    { weight: 5, arbitrary: pool.length ? fc.constantFrom(...pool) : fc.string({ minLength: min, maxLength: Math.min(max, 40) }) },
    { weight: 3, arbitrary: fc.string({ minLength: min, maxLength: Math.min(max, 80) }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: min, maxLength: Math.min(max, 40) }) },
    { weight: 1, arbitrary: long },
  );
}

function intArb(s: JsonSchema): fc.Arbitrary<number> {
  const min = s.minimum ?? -1_000_000_000;
  const max = Math.min(s.maximum ?? 1_000_000_000, Number.MAX_SAFE_INTEGER);
  return fc.oneof(fc.constantFrom(min, max, Math.min(max, min + 1)), fc.integer({ min: Math.max(min, -1e9), max: Math.min(max, 1e9) }), fc.integer({ min, max: Math.min(max, min + 100) }));
}

/** Real files, names and positions of the hostile workspace, so valid inputs reach the handlers. */
const KNOWN_PATHS = [
  'src/Billing/Application/InvoiceService.cs',
  'src/Billing/Api/InvoicesController.cs',
  'src/Billing/Api/Big.cs',
  'src/Evil/Nested.cs',
  'src/Evil/Aaa.cs',
  'src/Evil/Many.cs',
  'web/src/app.ts',
  'web/src/nested.ts',
  'web/src/longline.ts',
  'tests/Billing.Tests/InvoiceServiceTests.cs',
  'appsettings.json',
];
const KNOWN_NAMES = ['InvoiceService', 'IInvoiceService', 'CreateInvoiceAsync', 'Billing.Application.InvoiceService', 'Evil.Many.M7', 'Nested', 'getRequiredService', 'Billing'];

const targetArb: fc.Arbitrary<unknown> = fc.oneof(
  fc.record({ path: fc.constantFrom(...KNOWN_PATHS), line: fc.integer({ min: 1, max: 40 }), column: fc.integer({ min: 1, max: 60 }) }, { requiredKeys: ['path', 'line'] }),
  fc.record({ qualifiedName: fc.constantFrom(...KNOWN_NAMES) }),
  fc.record({ symbolId: fc.constantFrom('T:Billing.Application.InvoiceService', 'M:Billing.Application.InvoiceService.CreateInvoiceAsync(CreateInvoiceCommand)', 'T:Evil.Nested', 'x') }),
);

/** Files, names, symbol ids and projects of the workspace being fuzzed, beside the hostile workspace's own (test/fuzz/mcpFuzz.ts reads them from the index). */
export interface WorkspaceFacts {
  paths: string[];
  names: string[];
  symbolIds: string[];
  projects: string[];
}

function factsTargetArb(f: WorkspaceFacts): fc.Arbitrary<unknown> {
  const alts: fc.Arbitrary<unknown>[] = [targetArb];
  if (f.paths.length) alts.push(fc.record({ path: fc.constantFrom(...f.paths), line: fc.integer({ min: 1, max: 120 }), column: fc.integer({ min: 1, max: 60 }) }, { requiredKeys: ['path', 'line'] }));
  if (f.names.length) alts.push(fc.record({ qualifiedName: fc.constantFrom(...f.names) }));
  if (f.symbolIds.length) alts.push(fc.record({ symbolId: fc.constantFrom(...f.symbolIds) }));
  return fc.oneof(...alts);
}

/** Property names whose values are best drawn from real workspace facts most of the time. */
function knownFor(key: string, f?: WorkspaceFacts): fc.Arbitrary<unknown> | undefined {
  if (key === 'target') return f ? factsTargetArb(f) : targetArb;
  if (key === 'path') return fc.constantFrom(...KNOWN_PATHS, ...(f?.paths ?? []));
  if (key === 'query' || key === 'key') return fc.constantFrom(...KNOWN_NAMES, 'Billing:InvoicePrefix', '**/*.cs', 'Invoice', ...(f?.names ?? []));
  if (key === 'project' || key === 'from' || key === 'to') return fc.constantFrom('src/Billing/Application/Billing.Application.csproj', 'Billing.Application', ...(f?.projects ?? []));
  if (key === 'language') return fc.constantFrom('csharp', 'typescript');
  return undefined;
}

/** A (mostly) schema-valid value (`facts`: also the fuzzed workspace's own files and names). */
export function validArb(s: JsonSchema, depth = 0, facts?: WorkspaceFacts): fc.Arbitrary<unknown> {
  if (s.const !== undefined) return fc.constant(s.const);
  if (s.enum) return fc.constantFrom(...s.enum);
  const alts = s.anyOf ?? s.oneOf;
  if (alts) return fc.oneof(...alts.map((a) => validArb(a, depth + 1, facts)));
  const type = Array.isArray(s.type) ? s.type[0] : s.type;
  switch (type) {
    case 'string':
      return stringArb(s);
    case 'integer':
      return intArb(s);
    case 'number':
      return fc.double({ min: s.minimum ?? -1e9, max: s.maximum ?? 1e9, noNaN: true });
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(s.items ? validArb(s.items, depth + 1, facts) : fc.anything(), { minLength: s.minItems ?? 0, maxLength: Math.min(s.maxItems ?? 5, 5) });
    case 'object': {
      const props = s.properties ?? {};
      const required = s.required ?? [];
      const rec: Record<string, fc.Arbitrary<unknown>> = {};
      for (const [k, v] of Object.entries(props)) {
        const known = knownFor(k, facts);
        rec[k] = known ? fc.oneof({ weight: 3, arbitrary: known }, { weight: 2, arbitrary: validArb(v, depth + 1, facts) }) : validArb(v, depth + 1, facts);
      }
      return fc.record(rec, { requiredKeys: required.filter((k) => k in rec) });
    }
    default:
      return fc.anything({ maxDepth: 2 });
  }
}

/** Arguments for one tool: valid (70%), near-valid with one broken field or an extra key (20%), junk (10%). */
export function argsArb(schema: JsonSchema, facts?: WorkspaceFacts): fc.Arbitrary<unknown> {
  const valid = validArb(schema, 0, facts);
  const keys = Object.keys(schema.properties ?? {});
  const nearValid = fc
    .tuple(valid, keys.length ? fc.constantFrom(...keys, '__proto__', 'unknownField') : fc.constant('unknownField'), fc.anything({ maxDepth: 2 }))
    .map(([v, k, junk]) => {
      const o = typeof v === 'object' && v !== null ? { ...(v as Record<string, unknown>) } : {};
      Object.defineProperty(o, k, { value: junk, enumerable: true, configurable: true, writable: true });
      return o;
    });
  return fc.oneof({ weight: 7, arbitrary: valid }, { weight: 2, arbitrary: nearValid }, { weight: 1, arbitrary: fc.anything({ maxDepth: 3 }) });
}
