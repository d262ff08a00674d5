// One file collects every gateway log line of the whole run (test/support/stack.ts appends to it), so that
// globalTeardown can check that no credential was ever logged.
const { mkdtempSync } = require('node:fs');
const { join } = require('node:path');
const { tmpdir } = require('node:os');

module.exports = async () => {
  process.env.TABLEGRAPH_TEST_LOG = join(mkdtempSync(join(tmpdir(), 'tablegraph-logs-')), 'gateway.jsonl');
};
