import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SERVER_NODE_FLAGS } from '../../bench/processes';

/** The bench gives the reference and the baseline the node flags of `npm start` that any server may take. */
describe("the bench's server flags", () => {
  it("are npm start's own", () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8')) as { scripts: { start: string } };
    const startFlags = pkg.scripts.start.split(/\s+/).filter((arg) => arg.startsWith('-'));
    expect(SERVER_NODE_FLAGS.length).toBeGreaterThan(0);
    for (const flag of SERVER_NODE_FLAGS) expect(startFlags).toContain(flag);
  });
});
