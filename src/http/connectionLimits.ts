import type { IncomingMessage, Server } from 'node:http';

/**
 * What the gateway's HTTP server allows one client connection. Node's defaults (60 s for headers, 300 s for the
 * request, checked every 30 s) would let a few hundred trickling or idle sockets be held for minutes.
 */
export interface ConnectionLimits {
  /** A client must send its complete request headers within this. Default 5000. */
  headersTimeoutMs: number;
  /** …and its whole request, headers and body, within this (not counting the gateway's answer). Default 30 000. */
  requestTimeoutMs: number;
  /** A keep-alive connection idle this long after an answer is closed. Default 5000. */
  keepAliveTimeoutMs: number;
  /** Requests served on one connection before it is closed, so long-lived clients spread over replicas; 0: no limit. Default 1000. */
  maxRequestsPerSocket: number;
  /** Request line and headers larger than this are refused with 431. Default 16 384. */
  maxHeaderBytes: number;
  /** Connections open at once; further ones are closed as soon as they are accepted. Default 4096. */
  maxConnections: number;
}

/** Applies `limits` to a server not yet listening. */
export function limitConnections(server: Server, limits: ConnectionLimits): void {
  if (server.listening) throw new Error('connection limits must be applied before the server listens');
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxRequestsPerSocket = limits.maxRequestsPerSocket;
  server.maxConnections = limits.maxConnections;
  // Settings node:http's types leave out: read per accepted connection, and when the server starts listening.
  const internals = server as Server & { maxHeaderSize: number; connectionsCheckingInterval: number };
  internals.maxHeaderSize = limits.maxHeaderBytes;
  internals.connectionsCheckingInterval = checkingIntervalMs(limits);
}

/** How often Node checks the timeouts: a quarter of the shortest, between 10 ms and 1 s (late by at most a quarter). */
export function checkingIntervalMs(limits: Pick<ConnectionLimits, 'headersTimeoutMs' | 'requestTimeoutMs'>): number {
  return Math.min(1000, Math.max(10, Math.floor(Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs) / 4)));
}

/** Whether reading a request failed because its connection was cut before it arrived: nobody is left to answer. */
export function cutWhileArriving(req: IncomingMessage, err: unknown): boolean {
  return req.destroyed && !req.complete && typeof err === 'object' && err !== null && 'code' in err && err.code === 'ECONNRESET';
}
