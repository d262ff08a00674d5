import { readFileSync } from 'node:fs';

/**
 * Where a V8 CPU profile's time went: self time by module (a package under node_modules, a file of ours, or Node's
 * internals) and by function, then each function's inclusive share of the busy time (idle and `(program)` left out:
 * its own time and its callees'). `BENCH_CPU_PROF=/tmp/prof npm run bench`, then
 * `node dist/bench/cpuprofile.js /tmp/prof/gateway-….cpuprofile [rows]`.
 */
export interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

function moduleOf(url: string): string {
  if (!url) return '(native or idle)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1];
  if (url.startsWith('node:')) return 'node:internal';
  const ours = /\/dist\/(.+)$/.exec(url);
  return ours ? ours[1] : url;
}

function main(): void {
  const file = process.argv[2];
  if (!file) throw new Error('usage: cpuprofile <file.cpuprofile> [rows]');
  const rows = Number(process.argv[3] ?? 25);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const byModule = new Map<string, number>();
  const byFunction = new Map<string, number>();
  /** A node's function as the tables name it: `name module:line`. */
  const label = (id: number): string => {
    const frame = byId.get(id)!.callFrame;
    return `${frame.functionName || '(anonymous)'} ${moduleOf(frame.url)}:${frame.lineNumber + 1}`;
  };
  for (const [id, us] of selfUs) {
    const mod = moduleOf(byId.get(id)!.callFrame.url);
    byModule.set(mod, (byModule.get(mod) ?? 0) + us);
    byFunction.set(label(id), (byFunction.get(label(id)) ?? 0) + us);
  }
  const print = (title: string, map: Map<string, number>, of: number) => {
    process.stdout.write(`\n${title}\n`);
    for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
      process.stdout.write(`${((100 * us) / of).toFixed(1).padStart(5)}%  ${name}\n`);
    }
  };
  const sampled = `(self time, of ${(total / 1000).toFixed(0)} ms sampled)`;
  print(`by module ${sampled}`, byModule, total);
  print(`by function ${sampled}`, byFunction, total);

  // Inclusive: each sample counts once for every distinct function on its stack.
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const child of n.children ?? []) parent.set(child, n.id);
  const inclusive = new Map<string, number>();
  let busy = 0;
  for (const [id, us] of selfUs) {
    const name = byId.get(id)!.callFrame.functionName;
    if (name === '(idle)' || name === '(program)') continue;
    busy += us;
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const fn = label(at);
      if (seen.has(fn)) continue;
      seen.add(fn);
      inclusive.set(fn, (inclusive.get(fn) ?? 0) + us);
    }
  }
  print(`by function, inclusive (of ${(busy / 1000).toFixed(0)} ms busy)`, inclusive, busy);
}

main();
