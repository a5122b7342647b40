// Sums vitest JSON reports into the one line CI reads: "N passed, M failed".
// A report that is missing (the run crashed) or a file that failed to load counts as a failure.
import { readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
for (const file of process.argv.slice(2)) {
  try {
    const report = JSON.parse(readFileSync(file, 'utf8'));
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    // Suites that failed to load report no tests; count each so they cannot pass silently.
    failed += report.testResults.filter(
      (suite) => suite.status === 'failed' && suite.assertionResults.length === 0,
    ).length;
  } catch {
    console.error(`no test report at ${file}`);
    failed += 1;
  }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
