import DataLoader from 'dataloader';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import mercurius, { type IResolvers, type MercuriusContext, type PersistedQueryProvider } from 'mercurius';
import { Pool } from 'undici';
import { ServiceCredentials } from '../src/credentials';
import { DateScalar, DateTimeScalar, DecimalScalar, JSONScalar, LocalDateTimeScalar, LocalTimeScalar } from '../src/scalars';
import { loadTypeDefs } from '../src/schema';
import type { CheckDto } from '../src/upstreams/pos/dto';
import type { ReservationDto, ReservationListDto } from '../src/upstreams/reservation/dto';
import { bookingBody, mapCheck, mapReservation, type BookInput } from './baseline';
import { benchManifest } from './operations';

/**
 * The benchmark's reference: the BFF a skilled team would write instead of running the gateway, on the fastest
 * mainstream Node GraphQL stack. Fastify 5 + Mercurius 16 over the gateway's own SDL (the same field names, and the
 * gateway's scalars, which check each value as it is served), graphql-jit from a query's first request (`jit: 1`),
 * Mercurius' parse-and-validate cache, a DataLoader per request for checks (so S2's 50 reservations make 30 POS
 * calls), and one keep-alive undici pool per upstream. Only what S1, S2 and S3 select has resolvers: the upstream
 * records are mapped to the contract's names by the baseline's hand mapping, and graphql-jit reads fields off them.
 * Like the baseline it handles no upstream failure beyond what Mercurius does for a throwing resolver.
 */
export interface MercuriusOptions {
  reservationUrl: string;
  posUrl: string;
  /** Keep-alive connections per upstream; the gateway's default is 128. */
  connections?: number;
}

declare module 'mercurius' {
  interface MercuriusContext {
    checks: DataLoader<string, Record<string, unknown>>;
  }
}

interface MappedReservation extends Record<string, unknown> {
  /** The linked check's id, which `Reservation.check` loads. */
  checkId: string | null;
}

/** The gateway's scalars, as the reference registers them (bench/micro.ts times its execution with them too). */
export const REFERENCE_SCALARS = { DateTime: DateTimeScalar, Date: DateScalar, LocalDateTime: LocalDateTimeScalar, LocalTime: LocalTimeScalar, Decimal: DecimalScalar, JSON: JSONScalar };

export async function createMercurius(options: MercuriusOptions): Promise<FastifyInstance> {
  const connections = options.connections ?? 128;
  const reservation = new Pool(options.reservationUrl, { connections });
  const pos = new Pool(options.posUrl, { connections });
  const getJson = async <T>(pool: Pool, path: string, headers: Record<string, string>): Promise<T> => {
    const res = await pool.request({ method: 'GET', path, headers });
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(`upstream answered ${res.statusCode}`);
    }
    return (await res.body.json()) as T;
  };
  // The same credential headers the gateway forwards, each only to its own service, under the same names.
  const credentials = (request: FastifyRequest, service: 'reservation' | 'pos') => {
    const header = (name: string) => {
      const value = request.headers[name];
      return typeof value === 'string' ? value : undefined;
    };
    return { accept: 'application/json', ...ServiceCredentials.from(service, header).headers(service) };
  };

  const resolvers: IResolvers = {
    ...REFERENCE_SCALARS,
    Query: {
      check: (_root, args: { id: string }, ctx: MercuriusContext) => ctx.checks.load(args.id),
      reservations: async (_root, args: { date: string; page: number; perPage: number; revenueCenterId?: string }, ctx: MercuriusContext) => {
        const query = new URLSearchParams({ date: args.date, page: String(args.page), per_page: String(args.perPage) });
        if (args.revenueCenterId) query.set('revenue_center_id', args.revenueCenterId);
        const list = await getJson<ReservationListDto>(reservation, `/v1/reservations?${query.toString()}`, credentials(ctx.reply.request, 'reservation'));
        const meta = list.meta;
        return {
          pageInfo: { totalCount: meta.total_count, currentPage: meta.current_page, perPage: meta.per_page_count, totalPages: meta.total_page, hasNextPage: meta.has_next_page },
          nodes: list.reservations.map((r): MappedReservation => ({ ...mapReservation(r), checkId: r.check?.id ?? null })),
        };
      },
    },
    Mutation: {
      // S3's booking, as the baseline makes it.
      createReservation: async (_root, args: { input: BookInput }, ctx: MercuriusContext) => {
        const headers = { ...credentials(ctx.reply.request, 'reservation'), 'content-type': 'application/json' };
        const res = await reservation.request({ method: 'POST', path: '/v1/reservations', headers, body: bookingBody(args.input) });
        const body = (await res.body.json()) as { reservation: ReservationDto };
        return { reservation: { ...mapReservation(body.reservation), checkId: body.reservation.check?.id ?? null } };
      },
    },
    Reservation: {
      check: (r: MappedReservation, _args: unknown, ctx: MercuriusContext) => (r.checkId ? ctx.checks.load(r.checkId) : null),
    },
  };

  const app = Fastify({ logger: false });
  await app.register(mercurius, {
    schema: loadTypeDefs(),
    resolvers,
    jit: 1,
    cache: true,
    graphiql: false,
    persistedQueryProvider: trustedDocuments(),
    context: (request) => {
      const headers = credentials(request, 'pos');
      // One loader per request: a check asked for twice in one answer is read once, and never across callers.
      const checks = new DataLoader<string, Record<string, unknown>>((ids) =>
        Promise.all(ids.map(async (id) => mapCheck(await getJson<CheckDto>(pos, `/checks/${encodeURIComponent(id)}`, headers)))),
      );
      return { checks };
    },
  });
  app.get('/readyz', (_request, reply) => reply.type('application/json').send('{"status":"ready"}'));
  app.addHook('onClose', async () => {
    await Promise.all([reservation.close(), pos.close()]);
  });
  return app;
}

/**
 * S1id's documents by id, as the gateway's trusted-document manifest lists them, named the way Apollo Client's
 * persisted query link sends them (`extensions.persistedQuery.sha256Hash`, no `query`).
 */
function trustedDocuments(): PersistedQueryProvider {
  const manifest = JSON.parse(benchManifest()) as { operations: Array<{ id: string; body: string }> };
  const bodies = new Map(manifest.operations.map((op) => [op.id, op.body]));
  const hashOf = (request: { extensions?: { persistedQuery?: { version?: number; sha256Hash?: string } } }) => request.extensions?.persistedQuery?.sha256Hash;
  return {
    isPersistedQuery: (request) => !request.query && hashOf(request) !== undefined,
    isPersistedQueryRetry: () => false,
    getHash: (request) => hashOf(request) ?? '',
    getQueryFromHash: (hash) => Promise.resolve(bodies.get(hash)),
    notFoundError: 'PersistedQueryNotFound',
  };
}
