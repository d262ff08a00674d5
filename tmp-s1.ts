async function setup(root: string, mode: 'old' | 'new') {
  const { compileQuery, isCompiledQuery } = await import('graphql-jit');
  const { parse } = await import('graphql');
  const { buildExecutableSchema } = await import(`${root}/src/execution/jitExecution`);
  const { resolvers } = await import(`${root}/src/resolvers`);
  const { loadTypeDefs } = await import(`${root}/src/schema`);
  const { createSampleState, SAMPLE } = await import(`${root}/src/sandbox`);
  const { Check } = await import(`${root}/src/upstreams/pos/dto`);
  const { OPERATIONS } = await import(`/work/wt/i8/bench/operations`);
  const raw = JSON.stringify(createSampleState().tenants.laTerrazza.checks.get(SAMPLE.laTerrazza.openCheckId));
  let make: (b: unknown) => unknown;
  if (mode === 'new') {
    const { UpstreamRecord } = await import(`${root}/src/upstreams/record`);
    const origin = { service: 'pos', route: '/checks/:id', status: 200, deviations: { report: () => undefined } };
    make = (b) => UpstreamRecord.of(Check, b, origin);
  } else make = (b) => Check.parse(b);
  const schema = buildExecutableSchema(loadTypeDefs(`${root}/schema`), resolvers);
  const compiled = compileQuery(schema, parse(OPERATIONS.S1.query), 'BenchCheck');
  if (!isCompiledQuery(compiled)) throw new Error('no');
  const run = async () => {
    const check = make(JSON.parse(raw));
    const ctx = { config: { posTimestampUnit: 's' }, loaders: { checkById: { load: async () => check } } };
    return compiled.query(undefined, ctx, { id: SAMPLE.laTerrazza.openCheckId });
  };
  const r = await run();
  if (r.errors) throw new Error(JSON.stringify(r.errors));
  return { run, size: JSON.stringify(r).length };
}
async function main() {
  const old = await setup('/tmp/i8old', 'old');
  const neu = await setup('/work/wt/i8', 'new');
  const res: Record<string, number[]> = { old: [], new: [] };
  for (let round = 0; round < 12; round++) {
    for (const [name, s] of [['old', old], ['new', neu]] as const) {
      const t = performance.now();
      for (let i = 0; i < 2000; i++) await s.run();
      res[name]!.push(((performance.now() - t) / 2000) * 1000);
    }
  }
  for (const [k, v] of Object.entries(res)) { v.sort((a, b) => a - b); console.log(k, 'median µs', v[6]!.toFixed(1), 'min', v[0]!.toFixed(1)); }
  console.log('sizes', old.size, neu.size);
}
main();
