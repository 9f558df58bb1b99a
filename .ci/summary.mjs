// Prints the plain closing line CI reads ("tests: N passed, N failed, N skipped") from the
// vitest JSON report, adding to the running totals in the file given as the second argument.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const [report, totalsFile] = process.argv.slice(2);
const data = JSON.parse(readFileSync(report, 'utf8'));
const run = {
  passed: data.numPassedTests,
  failed: data.numFailedTests,
  skipped: data.numPendingTests + (data.numTodoTests ?? 0),
};
const saved = existsSync(totalsFile) ? readFileSync(totalsFile, 'utf8').trim() : '';
const totals = saved === '' ? { passed: 0, failed: 0, skipped: 0 } : JSON.parse(saved);
for (const k of Object.keys(run)) totals[k] += run[k];
writeFileSync(totalsFile, JSON.stringify(totals));
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
