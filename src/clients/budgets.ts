import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { RedisConnection } from '../redis/connection';
import type { KnownClient } from '../pipeline/record';

/** One quota as the RateLimit headers tell it: its policy and where the caller stands. */
export interface QuotaState {
  /** The policy's name in `RateLimit-Policy` and `RateLimit`. */
  readonly name: 'requests' | 'upstream-calls';
  readonly quota: number;
  readonly windowSeconds: number;
  readonly remaining: number;
  /** Seconds until quota comes back (0 when nothing is spent). */
  readonly resetSeconds: number;
}

export type TakeResult =
  | { allowed: true; quotas: QuotaState[] }
  | { allowed: false; reason: 'rate_limited' | 'upstream_budget'; retryAfterSeconds: number; quotas: QuotaState[] };

/** An operation's reservation of its estimated upstream calls: admitted, or refused while the budget is spent. */
export type BudgetReservation = { allowed: true; quota: QuotaState } | { allowed: false; retryAfterSeconds: number; quota: QuotaState };

export interface ClientBudgetsOptions {
  clients: readonly KnownClient[];
  /** With it, one budget per client across every replica. */
  redis?: RedisConnection;
  /** While Redis is unreachable each replica enforces 1 ÷ localShareOf of every limit alone, never unlimited. */
  localShareOf: number;
}

interface ClientLimiters {
  requests: RateLimiterAbstract;
  upstreamCalls: RateLimiterAbstract;
  requestWindow: number;
}

/**
 * Every client's two budgets (requests in a window, upstream calls per minute) as rate-limiter-flexible fixed windows,
 * in Redis when given, with an in-memory insurance limiter holding the replica's share that answers whenever Redis
 * does not: Redis being gone neither fails a request nor lifts the limit. Without Redis, per process.
 */
export class ClientBudgets {
  private readonly limiters = new Map<string, ClientLimiters>();

  constructor(options: ClientBudgetsOptions) {
    for (const client of options.clients) {
      // The window holding `burst` requests at `requestsPerSecond`, in whole seconds as the RateLimit headers count.
      const requestWindow = Math.max(1, Math.ceil(client.policy.burst / client.policy.requestsPerSecond));
      const make = (kind: string, points: number, duration: number): RateLimiterAbstract => {
        const keyPrefix = `tablegraph:rl:${kind}:${client.name}`;
        if (!options.redis) return new RateLimiterMemory({ keyPrefix, points, duration });
        return new RateLimiterRedis({
          storeClient: options.redis.client,
          keyPrefix,
          points,
          duration,
          rejectIfRedisNotReady: true,
          insuranceLimiter: new RateLimiterMemory({ keyPrefix: `${keyPrefix}:local`, points: Math.max(1, Math.floor(points / options.localShareOf)), duration }),
        });
      };
      this.limiters.set(client.name, {
        requests: make('req', client.policy.burst, requestWindow),
        upstreamCalls: make('calls', client.policy.upstreamCallsPerMinute, 60),
        requestWindow,
      });
    }
  }

  /** Takes one request from the client's budget and checks that its upstream-call budget is not spent. */
  async take(client: KnownClient, key: string): Promise<TakeResult> {
    const l = this.of(client);
    // Both budgets at once: with Redis, one round trip's wait instead of two in a row.
    const [taken, callsRead] = await Promise.allSettled([l.requests.consume(key, 1), l.upstreamCalls.get(key)]);
    if (callsRead.status === 'rejected') throw callsRead.reason;
    const calls = this.state('upstream-calls', client.policy.upstreamCallsPerMinute, 60, callsRead.value);
    if (taken.status === 'rejected') {
      // With an insurance limiter a store error never reaches here; anything but a refusal is a fault of ours.
      if (!(taken.reason instanceof RateLimiterRes)) throw taken.reason;
      const res = taken.reason;
      return { allowed: false, reason: 'rate_limited', retryAfterSeconds: retryAfter(res), quotas: [this.state('requests', client.policy.burst, l.requestWindow, res), calls] };
    }
    const requests = this.state('requests', client.policy.burst, l.requestWindow, taken.value);
    if (calls.remaining <= 0) return { allowed: false, reason: 'upstream_budget', retryAfterSeconds: retryAfter(callsRead.value), quotas: [requests, calls] };
    return { allowed: true, quotas: [requests, calls] };
  }

  /**
   * Reserves an operation's estimated upstream calls before it runs, in one atomic step (INCRBY in Redis), so
   * concurrent requests on every replica see each other's reservations. Admitted while the budget was not spent
   * before this reservation: the last one admitted may straddle the limit, by at most its own estimate. A refused
   * reservation is given back.
   */
  async reserve(client: KnownClient, key: string, calls: number): Promise<BudgetReservation> {
    const l = this.of(client);
    const quota = client.policy.upstreamCallsPerMinute;
    let res: RateLimiterRes;
    try {
      res = await l.upstreamCalls.consume(key, calls);
    } catch (err) {
      // With an insurance limiter a store error never reaches here; anything but a refusal is a fault of ours.
      if (!(err instanceof RateLimiterRes)) throw err;
      res = err;
      if (res.consumedPoints - calls >= quota) {
        await l.upstreamCalls.reward(key, calls).catch(() => undefined);
        const spent = this.state('upstream-calls', quota, 60, res);
        return { allowed: false, retryAfterSeconds: retryAfter(res), quota: spent };
      }
    }
    return { allowed: true, quota: this.state('upstream-calls', quota, 60, res) };
  }

  /**
   * Settles a request's reservation once it ran: the calls it actually made minus those it reserved are charged (or
   * given back when fewer). They happened, whatever the budget says now.
   */
  async settle(client: KnownClient, key: string, reserved: number, made: number): Promise<QuotaState> {
    const l = this.of(client);
    const difference = made - reserved;
    const res =
      difference > 0 ? await l.upstreamCalls.penalty(key, difference) : difference < 0 ? await l.upstreamCalls.reward(key, -difference) : await l.upstreamCalls.get(key);
    return this.state('upstream-calls', client.policy.upstreamCallsPerMinute, 60, res);
  }

  /**
   * Charges `calls` upstream calls to the client's budget at once (atomically, INCRBY in Redis), e.g. a live poll's
   * read for each subscribed client, and says whether the budget is now spent.
   */
  async charge(client: KnownClient, key: string, calls: number): Promise<QuotaState & { spent: boolean }> {
    const l = this.of(client);
    const res = await l.upstreamCalls.penalty(key, calls);
    return { ...this.state('upstream-calls', client.policy.upstreamCallsPerMinute, 60, res), spent: res.consumedPoints >= client.policy.upstreamCallsPerMinute };
  }

  private of(client: KnownClient): ClientLimiters {
    const l = this.limiters.get(client.name);
    if (!l) throw new Error(`no budgets for client ${client.name}`);
    return l;
  }

  private state(name: QuotaState['name'], quota: number, windowSeconds: number, res: RateLimiterRes | null): QuotaState {
    // The limiter's own remaining points are those of whichever store answered (Redis, or the local share).
    const consumed = res?.consumedPoints ?? 0;
    return {
      name,
      quota,
      windowSeconds,
      remaining: Math.max(0, Math.min(quota - consumed, res?.remainingPoints ?? quota)),
      resetSeconds: res && consumed > 0 ? Math.max(0, Math.ceil(res.msBeforeNext / 1000)) : 0,
    };
  }
}

function retryAfter(res: RateLimiterRes | null): number {
  return Math.max(1, Math.ceil((res?.msBeforeNext ?? 1000) / 1000));
}
