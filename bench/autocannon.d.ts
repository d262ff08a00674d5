/** The part of autocannon's programmatic API the benchmark uses (the package ships no types). */
declare module 'autocannon' {
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    duration?: number;
    /** Stop after this many requests (instead of a duration). */
    amount?: number;
    pipelining?: number;
    /** Responses whose body differs count as mismatches. */
    expectBody?: string;
    /** Called once for each connection as it is set up. */
    setupClient?: (client: { setHeaders(headers: Record<string, string>): void }) => void;
  }
  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p99: number;
    total: number;
  }
  interface Result {
    requests: Histogram & { sent: number };
    latency: Histogram;
    duration: number;
    errors: number;
    timeouts: number;
    non2xx: number;
    mismatches: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export = autocannon;
}
