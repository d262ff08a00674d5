import type { IncomingMessage, Server } from 'node:http';

/**
 * What the gateway's HTTP server allows one client connection. Node's own defaults give a client 60 s to send its
 * headers and 300 s for its whole request, checked only every 30 s: a few hundred sockets trickling a header byte
 * now and then, or just sitting idle, would be held for minutes.
 */
export interface ConnectionLimits {
  /** A client must send its complete request headers within this, from its first byte or from connecting. Default 5000. */
  headersTimeoutMs: number;
  /** …and its whole request, headers and body, within this (not counting the time the gateway takes to answer). Default 30 000. */
  requestTimeoutMs: number;
  /** A keep-alive connection idle this long after an answer is closed (Node adds about a second). Default 5000. */
  keepAliveTimeoutMs: number;
  /** Requests served on one connection before it is closed, so long-lived clients spread over replicas; 0: no limit. Default 1000. */
  maxRequestsPerSocket: number;
  /** Request line and headers larger than this are refused with 431. Default 16 384 (Node's own). */
  maxHeaderBytes: number;
  /** Connections open at once; further ones are closed as soon as they are accepted. Default 4096. */
  maxConnections: number;
}

/** Settings of node:http's Server that its type declarations leave out (Node 18.12+ reads both). */
interface ServerInternals {
  maxHeaderSize: number;
  connectionsCheckingInterval: number;
}

/**
 * Applies `limits` to a server not yet listening. Node enforces the headers and request timeouts on a timer, every
 * 30 s by default, so a 5 s limit could hold a socket 35 s: the timer is set from the limits (at most every second).
 */
export function limitConnections(server: Server, limits: ConnectionLimits): void {
  if (server.listening) throw new Error('connection limits must be applied before the server listens');
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxRequestsPerSocket = limits.maxRequestsPerSocket;
  server.maxConnections = limits.maxConnections;
  const internals = server as Server & ServerInternals;
  // Read per connection when it is accepted, so setting it on the built server works as the constructor option.
  internals.maxHeaderSize = limits.maxHeaderBytes;
  // Read when the server starts listening.
  internals.connectionsCheckingInterval = checkingIntervalMs(limits);
}

/** A quarter of the shortest timeout, between 10 ms and 1 s: late by at most a quarter, never busy. */
export function checkingIntervalMs(limits: Pick<ConnectionLimits, 'headersTimeoutMs' | 'requestTimeoutMs'>): number {
  return Math.min(1000, Math.max(10, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4)));
}

/**
 * Whether reading a request failed because its connection was cut before the request had arrived: the client left,
 * or the request timeout closed it. Nobody is left to answer, and it is no fault of the gateway's.
 */
export function cutWhileArriving(req: IncomingMessage, err: unknown): boolean {
  return req.destroyed && !req.complete && typeof err === 'object' && err !== null && 'code' in err && err.code === 'ECONNRESET';
}
