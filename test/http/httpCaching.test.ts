import { request } from 'node:http';
import { createHash } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { represent, etagOf } from '../../src/http/httpCaching';
import { SAMPLE } from '../../src/sandbox';
import { LA_TERRAZZA, logLine, startStack, type Stack } from '../support/stack';

/** Caching headers, revalidation and compression of `/graphql` answers (CONTRACT.md, "HTTP caching"), over real HTTP. */

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** The body as it came over the wire (compressed or not). */
  body: Buffer;
}

/** A request with node's own client, which decodes nothing: the body as sent. */
function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? 'GET', headers: options.headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

function decoded(res: Raw): string {
  const coding = res.headers['content-encoding'];
  const bytes = coding === 'gzip' ? gunzipSync(res.body) : coding === 'br' ? brotliDecompressSync(res.body) : res.body;
  return bytes.toString('utf8');
}

/** Apollo's CSRF prevention refuses a GET without a header a browser form cannot send. */
const PREFLIGHTED = { ...LA_TERRAZZA, 'apollo-require-preflight': 'true' };
/** A multipart answer's initial result, and every deferred entry in path order (how they were grouped in parts depends on timing). */
function deliveredParts(text: string): { initial: unknown; entries: unknown[] } {
  type Part = { incremental?: Array<{ path: unknown }> };
  const [initial, ...later] = text
    .split('\r\n---')
    .filter((p) => p.includes('{'))
    .map((p) => JSON.parse(p.slice(p.indexOf('{'))) as Part);
  const entries = later.flatMap((p) => p.incremental ?? []).sort((a, b) => JSON.stringify(a.path).localeCompare(JSON.stringify(b.path)));
  return { initial, entries };
}

const REQUIRED_VARY = ['Pos-Access-Token', 'Reservation-Access-Token', 'Authorization', 'X-Api-Key', 'Accept', 'Accept-Encoding'];
const DAY = 'query Day($date: Date!) { reservations(date: $date, perPage: 50) { nodes { id status guestCount } } }';

describe('HTTP caching', () => {
  let stack: Stack;
  let date: string;
  let dayUrl: string;

  beforeAll(async () => {
    stack = await startStack();
    date = SAMPLE.laTerrazza.busyDate(stack.sandbox.state);
    dayUrl = `${stack.url}/graphql?${new URLSearchParams({ query: DAY, variables: JSON.stringify({ date }) }).toString()}`;
  });
  afterAll(() => stack.close());

  const get = (headers: Record<string, string> = {}) => raw(dayUrl, { headers: { ...PREFLIGHTED, ...headers } });
  const requestsTotal = async () => {
    const text = await (await fetch(`${stack.url}/metrics`)).text();
    return text
      .split('\n')
      .filter((l) => l.startsWith('tablegraph_graphql_requests_total{operation="Day"'))
      .reduce((sum, l) => sum + Number(l.split(' ').at(-1)), 0);
  };

  it('marks a GET answer private, revalidated, with a strong ETag of its body and a Vary naming the credentials', async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('private, no-cache');
    const etag = String(res.headers.etag);
    expect(etag).toMatch(/^"[\w-]+"$/);
    const vary = String(res.headers.vary).split(/,\s*/);
    expect(vary).toEqual(expect.arrayContaining(REQUIRED_VARY));
    // Another body, another tag: the tag is the body's.
    const other = await raw(dayUrl.replace('perPage%3A+50', 'perPage%3A+49'), { headers: PREFLIGHTED });
    expect(createHash('sha256').update(other.body).digest('hex')).not.toBe(createHash('sha256').update(res.body).digest('hex'));
    expect(other.headers.etag).not.toBe(etag);
  });

  it('answers a GET whose If-None-Match matches with 304, no body, the same headers, one log line and one count', async () => {
    const first = await get();
    const before = await requestsTotal();
    const again = await get({ 'if-none-match': String(first.headers.etag), 'x-request-id': 'revalidate-1' });
    expect(again.status).toBe(304);
    expect(again.body).toHaveLength(0);
    for (const name of ['etag', 'cache-control', 'vary']) expect(again.headers[name]).toBe(first.headers[name]);
    expect(logLine(stack, 'revalidate-1')).toMatchObject({ httpStatus: 304, outcome: 'success' });
    expect(stack.logs.filter((l) => l.includes('"requestId":"revalidate-1"') && l.includes('"graphql request"'))).toHaveLength(1);
    expect((await requestsTotal()) - before).toBe(1);

    const changed = await get({ 'if-none-match': '"not-this-one"' });
    expect(changed.status).toBe(200);
    expect(decoded(changed)).toBe(decoded(first));
  });

  it('revalidates a GET by persisted-query hash the same way', async () => {
    const sha256Hash = createHash('sha256').update(DAY).digest('hex');
    const extensions = { persistedQuery: { version: 1, sha256Hash } };
    await raw(`${stack.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...LA_TERRAZZA }, body: JSON.stringify({ query: DAY, variables: { date }, extensions }) });
    const url = `${stack.url}/graphql?${new URLSearchParams({ variables: JSON.stringify({ date }), extensions: JSON.stringify(extensions) }).toString()}`;
    const first = await raw(url, { headers: PREFLIGHTED });
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toBe('private, no-cache');
    expect(JSON.parse(decoded(first))).toHaveProperty('data.reservations.nodes');
    const again = await raw(url, { headers: { ...PREFLIGHTED, 'if-none-match': String(first.headers.etag) } });
    expect(again.status).toBe(304);
  });

  it('stores nothing of a POST answer, a refusal or an incremental answer', async () => {
    const post = await raw(`${stack.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...LA_TERRAZZA }, body: JSON.stringify({ query: DAY, variables: { date } }) });
    expect(post.status).toBe(200);
    expect(post.headers['cache-control']).toBe('no-store');
    expect(post.headers.etag).toBeUndefined();

    const refused = await raw(`${stack.url}/graphql?query=${encodeURIComponent('{ nope }')}`, { headers: PREFLIGHTED });
    expect(refused.status).toBe(400);
    expect(refused.headers['cache-control']).toBe('no-store');
    expect(refused.headers.etag).toBeUndefined();

    const deferred = `query D($date: Date!) { reservations(date: $date, perPage: 5) { nodes { id ... @defer { check { id } } } } }`;
    const incremental = await raw(`${stack.url}/graphql?${new URLSearchParams({ query: deferred, variables: JSON.stringify({ date }) }).toString()}`, {
      headers: { ...PREFLIGHTED, accept: 'multipart/mixed;deferSpec=20220824, application/json' },
    });
    expect(incremental.headers['content-type']).toBe('multipart/mixed; boundary="-"; deferSpec=20220824');
    expect(incremental.headers['cache-control']).toBe('no-store');
    expect(incremental.headers.etag).toBeUndefined();
  });

  it('leaves no answer of the ops routes or the explorer without a Cache-Control', async () => {
    for (const path of ['/healthz', '/readyz', '/metrics', '/nowhere']) {
      const res = await raw(`${stack.url}${path}`);
      expect([path, res.headers['cache-control']]).toEqual([path, 'no-store']);
    }
    const page = await raw(`${stack.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.headers['cache-control']).toBe('no-store');
  });
});

describe('response compression', () => {
  let stack: Stack;
  let date: string;

  beforeAll(async () => {
    stack = await startStack();
    date = SAMPLE.laTerrazza.busyDate(stack.sandbox.state);
  });
  afterAll(() => stack.close());

  const post = (query: string, headers: Record<string, string>) =>
    raw(`${stack.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...LA_TERRAZZA, ...headers }, body: JSON.stringify({ query, variables: { date } }) });

  it('serves gzip and br as Accept-Encoding asks, each decoding to the same JSON as the uncompressed answer', async () => {
    const identity = await post(DAY, {});
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.body.length).toBeGreaterThan(1024);
    for (const [accept, coding] of [
      ['gzip', 'gzip'],
      ['br', 'br'],
      ['gzip;q=0.5, br', 'br'],
      ['br;q=0, gzip', 'gzip'],
    ]) {
      const res = await post(DAY, { 'accept-encoding': accept });
      expect([accept, res.headers['content-encoding']]).toEqual([accept, coding]);
      expect(String(res.headers.vary)).toContain('Accept-Encoding');
      expect(res.body.length).toBeLessThan(identity.body.length / 3);
      expect(JSON.parse(decoded(res))).toEqual(JSON.parse(identity.body.toString('utf8')));
    }
  });

  it('sends a small answer as it is', async () => {
    const res = await post('{ __typename }', { 'accept-encoding': 'gzip, br' });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(JSON.parse(res.body.toString('utf8'))).toEqual({ data: { __typename: 'Query' } });
  });

  it('gives each coding of a GET answer its own strong ETag, and revalidates each', async () => {
    const url = `${stack.url}/graphql?${new URLSearchParams({ query: DAY, variables: JSON.stringify({ date }) }).toString()}`;
    const tags = new Set<string>();
    for (const coding of ['identity', 'gzip', 'br']) {
      const res = await raw(url, { headers: { ...PREFLIGHTED, 'accept-encoding': coding } });
      tags.add(String(res.headers.etag));
      const again = await raw(url, { headers: { ...PREFLIGHTED, 'accept-encoding': coding, 'if-none-match': String(res.headers.etag) } });
      expect([coding, again.status]).toEqual([coding, 304]);
    }
    expect(tags.size).toBe(3);
    // A gzip tag does not revalidate a br answer.
    const [, gzipTag] = [...tags];
    expect((await raw(url, { headers: { ...PREFLIGHTED, 'accept-encoding': 'br', 'if-none-match': gzipTag } })).status).toBe(200);
  });

  it('compresses a multipart answer part by part, decoding to the parts the identity answer has', async () => {
    const deferred = `query D($date: Date!) { reservations(date: $date, perPage: 50) { nodes { id ... @defer { check { id alias } } } } }`;
    const accept = 'multipart/mixed;deferSpec=20220824, application/json';
    const identity = await post(deferred, { accept });
    for (const coding of ['gzip', 'br']) {
      const res = await post(deferred, { accept, 'accept-encoding': coding });
      expect(res.headers['content-encoding']).toBe(coding);
      expect(deliveredParts(decoded(res))).toEqual(deliveredParts(identity.body.toString('utf8')));
    }
  });

  it('compresses nothing with RESPONSE_COMPRESSION=false', async () => {
    const off = await startStack({ env: { RESPONSE_COMPRESSION: 'false' } });
    try {
      const res = await raw(`${off.url}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', ...LA_TERRAZZA, 'accept-encoding': 'gzip, br' }, body: JSON.stringify({ query: DAY, variables: { date } }) });
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(JSON.parse(res.body.toString('utf8'))).toHaveProperty('data.reservations.nodes');
    } finally {
      await off.close();
    }
  });
});

describe('represent', () => {
  const body = JSON.stringify({ data: { list: 'x'.repeat(2000) } });
  const answer = { status: 200, headers: new Map([['content-type', 'application/json']]), body };
  const asked = (headers: Record<string, string>, method: 'GET' | 'POST' = 'GET', compression = true) => represent(answer, { method, header: (name) => headers[name], compression });

  it('takes If-None-Match as a list, weak or strong, or `*`', () => {
    const tag = etagOf(body, undefined);
    expect(asked({ 'if-none-match': `"other", W/${tag}` }).status).toBe(304);
    expect(asked({ 'if-none-match': '*' }).status).toBe(304);
    expect(asked({ 'if-none-match': '"other"' }).status).toBe(200);
  });

  it('answers 304 with no content type and no body, and never to a POST', () => {
    const tag = etagOf(body, 'br');
    const revalidated = asked({ 'accept-encoding': 'br', 'if-none-match': tag });
    expect(revalidated).toMatchObject({ status: 304, body: '' });
    expect(revalidated.headers.get('content-type')).toBeUndefined();
    expect(revalidated.headers.get('etag')).toBe(tag);
    expect(asked({ 'accept-encoding': 'br', 'if-none-match': tag }, 'POST')).toMatchObject({ status: 200, encoding: 'br' });
  });

  it('compresses nothing when compression is off, and keeps the identity tag', () => {
    const off = asked({ 'accept-encoding': 'gzip' }, 'GET', false);
    expect(off.encoding).toBeUndefined();
    expect(off.headers.get('etag')).toBe(etagOf(body, undefined));
  });
});
