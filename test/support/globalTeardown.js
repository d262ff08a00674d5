// Fails the run when any credential the tests send appears in any gateway log line of the run.
const { existsSync, readFileSync, rmSync } = require('node:fs');
const { dirname } = require('node:path');
const { leakedSecrets } = require('./leaks');

const SECRETS_FILE_HINT = 'src/sandbox/credentials.ts';

module.exports = async () => {
  const file = process.env.TABLEGRAPH_TEST_LOG;
  if (!file || !existsSync(file)) return;
  const text = readFileSync(file, 'utf8');
  rmSync(dirname(file), { recursive: true, force: true });
  // Credential values of both sandbox venues, read from the source so this file needs no TypeScript.
  const source = readFileSync(require.resolve('../../' + SECRETS_FILE_HINT), 'utf8');
  // Tokens and keys (`'sandbox-…'`), and the 4-digit store PINs (`'Store-Pin-Code': '4821'`).
  const secrets = [...source.matchAll(/'((?:sandbox|Bearer sandbox)-[^']+)'|'Store-Pin-Code': '(\d{4})'/g)].map((m) => m[1] ?? m[2]);
  if (secrets.length < 10) throw new Error(`expected the sandbox credentials in ${SECRETS_FILE_HINT}, found ${secrets.length}`);
  const leaked = leakedSecrets(text, secrets);
  const lines = text.split('\n').filter(Boolean).length;
  if (leaked.length > 0) throw new Error(`credentials found in the gateway logs of this run: ${leaked.length} of ${secrets.length}`);
  process.stdout.write(`\nlogs: ${lines} gateway log lines of this run checked, no credential in them\n`);
};
