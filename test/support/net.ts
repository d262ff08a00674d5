/** A loopback port that was free a moment ago (for processes that cannot be told to use port 0); the benchmark's. */
export { freePort } from '../../bench/processes';
