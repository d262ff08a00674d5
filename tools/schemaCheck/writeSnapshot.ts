import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { renderSnapshot, SNAPSHOT_PATH } from './snapshot';
import { filesUnder, ROOT } from './sources';

/** `npm run schema:snapshot`: records schema/*.graphql as the published schema and prints the changelog line. */
const { text, version } = renderSnapshot(filesUnder('schema', '.graphql', false).map((f) => f.text).join('\n'));
mkdirSync(dirname(join(ROOT, SNAPSHOT_PATH)), { recursive: true });
writeFileSync(join(ROOT, SNAPSHOT_PATH), text);
process.stdout.write(
  `${SNAPSHOT_PATH}: version ${version}\nAdd to CHANGELOG.md's "Schema changelog" (what changed, for clients):\n- \`${version}\` ${new Date().toISOString().slice(0, 10)}: …\n`,
);
