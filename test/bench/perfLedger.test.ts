import { PerfTally } from '../../bench/ledger';

/** `perf script -F tid,ip,sym,dso` as it prints samples: the thread, then its frames, innermost first. */
function script(samples: Array<{ tid: number; frames: Array<[string, string]> }>): string[] {
  return samples.flatMap(({ tid, frames }) => [`${' '.repeat(3)}${tid} `, ...frames.map(([sym, dso]) => `\t    ${address(dso)} ${sym} (${dso})`), '']);
}

/** Kernel frames sit at kernel addresses (x86-64's upper half), whatever their module. */
function address(dso: string): string {
  return dso.startsWith('[') ? 'ffffffff8209a40f' : '55d1e0c3a2b1';
}

const NODE = '/usr/bin/node';
const KERNEL = '[kernel.kallsyms]';
const KERNEL_MODULE = '[virtio_net]';
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
      // The kernel under the transport's write: the kernel's.
      { tid: 7, frames: [['tcp_sendmsg', KERNEL], ['__GI___libc_write', '/usr/lib/libc.so.6'], transport] },
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

  it("counts the log line's kernel and JSON time as the log line's, an unnamed frame to the named one beneath it, and perf's one-line and empty samples", () => {
    const tally = new PerfTally('7');
    const lines = [
      ...script([
        // The log line's write to its pipe, in the kernel (a module's frame innermost): the log line, as in the profile.
        { tid: 7, frames: [['virtnet_poll', KERNEL_MODULE], ['tcp_sendmsg', KERNEL], ['__GI___libc_write', '/usr/lib/libc.so.6'], pino] },
        // JSON.stringify under the log line: the log line; under the route: JSON.stringify.
        { tid: 7, frames: [['v8::internal::JsonStringifier::SerializeString', NODE], pino] },
        { tid: 7, frames: [['v8::internal::JsonStringifier::SerializeString', NODE], ['JS:~ /srv/dist/src/execution/compiledPath.js:65:21', MAP]] },
        // A kernel sample with no JavaScript under it (epoll under libuv): the kernel's.
        { tid: 7, frames: [['do_epoll_wait', KERNEL], ['epoll_pwait', '/usr/lib/libc.so.6'], ['uv__io_poll', NODE]] },
        // An unnamed frame (Node's task queue) over the transport's: the transport's, whatever its tier mark.
        { tid: 7, frames: [['JS:^processTicksAndRejections node:internal/process/task_queues:95:5', MAP], ['JS:+attempt /srv/dist/src/upstreams/http.js:96:18', MAP]] },
        // JavaScript no rule names: other.
        { tid: 7, frames: [['JS:*emit node:events:471:44', MAP]] },
        // Collection wins over the kernel beneath it.
        { tid: 7, frames: [['v8::internal::MarkCompactCollector::CollectGarbage', NODE], transport] },
      ]),
      // perf prints a sample it could not walk on one line, and one with no stack as its thread alone.
      '    7      55d1e0c3a2b1 uv__io_poll (/usr/bin/node)',
      '    7 ',
    ];
    for (const line of lines) tally.line(line);
    const { main } = tally.result(1, 100);
    expect(Object.fromEntries(main.stages.map((s) => [s.stage, s.usPerRequest]))).toEqual({
      'the log line (pino, its write to stdout)': 200,
      'JSON.stringify (the answer)': 100,
      'the kernel (system calls: socket writes and reads, epoll)': 100,
      'upstream transport (undici, deadlines)': 100,
      'other (promises, timers, Node internals under no stage)': 100,
      'garbage collection': 100,
      'V8 and native, unattributed (program)': 100,
      'no stack (perf could not walk it)': 100,
    });
  });

  it('refuses a line that is not perf script -F tid,ip,sym,dso, and a recording without the main thread', () => {
    expect(() => new PerfTally('7').line('\t    55d1e0c3a2b1 uv__io_poll (/usr/bin/node)')).toThrow(/a frame before any sample/);
    expect(() => new PerfTally('7').line('node 7 [000] 12.5: cpu-clock:')).toThrow(/not a sample/);
    const other = new PerfTally('7');
    for (const line of script([{ tid: 9, frames: [['uv__work_done', NODE]] }])) other.line(line);
    expect(() => other.result(1, 500)).toThrow(/no sample of the main thread \(7\)/);
  });
});
