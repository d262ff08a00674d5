import { PerfTally } from '../../bench/ledger';

/** `perf script -F tid,ip,sym,dso` as it prints samples: the thread, then its frames, innermost first. */
function script(samples: Array<{ tid: number; frames: Array<[string, string]> }>): string[] {
  return samples.flatMap(({ tid, frames }) => [`${' '.repeat(3)}${tid} `, ...frames.map(([sym, dso], i) => `\t    ${(0x1000 + i).toString(16)} ${sym} (${dso})`), '']);
}

const NODE = '/usr/bin/node';
const KERNEL = '[kernel.kallsyms]';
const MAP = '/tmp/perf-7.map';
const transport = ['JS:*attempt /srv/dist/src/upstreams/http.js:96:18', MAP] as [string, string];
const pino = ['JS:*write /srv/node_modules/pino/lib/proto.js:200:10', MAP] as [string, string];
const handler = ['JS:*checkQuerycheckResolverHandler :1754:44', MAP] as [string, string];

describe('the ledger from perf samples (BENCH_LEDGER_PERF)', () => {
  it('counts each main-thread sample to a stage, and the other threads apart, in CPU µs per request', () => {
    const tally = new PerfTally('7');
    const lines = script([
      // JavaScript of the transport, inlined or not: its stage.
      { tid: 7, frames: [transport, ['JS:*processTicksAndRejections node:internal/process/task_queues:95:5', MAP]] },
      // A builtin under the log line's write: still the log line.
      { tid: 7, frames: [['Builtins_StringAdd_CheckNone', NODE], pino] },
      // The kernel under the log line's write: the kernel's.
      { tid: 7, frames: [['tcp_sendmsg', KERNEL], ['__GI___libc_write', '/usr/lib/libc.so.6'], pino] },
      // V8's collector, whatever allocated: collection.
      { tid: 7, frames: [['v8::internal::ScavengerCollector::CollectGarbage', NODE], ['v8::internal::Heap::CollectGarbage', NODE], transport] },
      // JSON.parse's natives, under whichever caller V8 inlined it into.
      { tid: 7, frames: [['v8::internal::JsonParser<unsigned char>::ScanJsonString', NODE], transport] },
      // A record's generated getter, not inlined (no file): the records'.
      { tid: 7, frames: [['JS:*get id :5:11', MAP], handler] },
      // graphql-jit's compiled query (no file): execution.
      { tid: 7, frames: [handler] },
      // Native code with no JavaScript under it.
      { tid: 7, frames: [['uv__io_poll', NODE]] },
      // Another thread: a collector helper, a compiler helper, and anything else.
      { tid: 9, frames: [['v8::internal::ConcurrentMarking::RunMajor', NODE]] },
      { tid: 9, frames: [['v8::internal::compiler::PipelineImpl::OptimizeGraph', NODE]] },
      { tid: 10, frames: [['uv__work_done', NODE]] },
    ]);
    for (const line of lines) tally.line(line);
    // Two requests, one sample per 500 µs: each sample is 250 µs per request.
    const { main, others } = tally.result(2, 500);
    const stage = (name: RegExp) => main.stages.find((s) => name.test(s.stage))?.usPerRequest;
    expect(stage(/^upstream transport/)).toBe(250);
    expect(stage(/^the log line/)).toBe(250);
    expect(stage(/^the kernel/)).toBe(250);
    expect(stage(/^garbage collection/)).toBe(250);
    expect(stage(/^JSON\.parse/)).toBe(250);
    expect(stage(/^field-local reading/)).toBe(250);
    expect(stage(/^execution/)).toBe(250);
    expect(stage(/^V8 and native/)).toBe(250);
    expect(main.totalUsPerRequest).toBe(8 * 250);
    expect(main.gcUsPerRequest).toBe(250);
    expect(Object.fromEntries(others.map((s) => [s.stage, s.usPerRequest]))).toEqual({
      'garbage collection': 250,
      'compiling (TurboFan)': 250,
      other: 250,
    });
  });
});
