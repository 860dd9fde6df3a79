/**
 * Package references that make a project a test project (test SDK, frameworks and adapters).
 * A project can opt out with `<IsTestProject>false</IsTestProject>`.
 */
const TEST_PACKAGES = new Set(
  [
    'Microsoft.NET.Test.Sdk',
    'xunit',
    'xunit.core',
    'xunit.runner.visualstudio',
    'xunit.v3',
    'xunit.v3.core',
    'NUnit',
    'NUnit3TestAdapter',
    'NUnitLite',
    'MSTest',
    'MSTest.TestFramework',
    'MSTest.TestAdapter',
    'TUnit',
  ].map((s) => s.toLowerCase()),
);

export function isTestPackage(name: string): boolean {
  return TEST_PACKAGES.has(name.toLowerCase());
}
