import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayMetrics } from '../observability/metrics';
import type { ServerLifecycle } from './lifecycle';
import { errorBody, sendJson } from './send';

export interface OpsRoutesOptions {
  lifecycle: ServerLifecycle;
  metrics: GatewayMetrics;
}

/**
 * The operator's endpoints: `/healthz` (the process serves), `/readyz` (send traffic here), `/metrics`
 * (Prometheus). Before the gateway has started, `/graphql` answers 503 rather than reaching an Apollo server that
 * cannot serve yet. Answers whether it handled the request.
 */
export async function opsRoutes(req: IncomingMessage, res: ServerResponse, pathname: string, options: OpsRoutesOptions): Promise<boolean> {
  const { lifecycle, metrics } = options;
  // HEAD answers as GET (same status and headers; node leaves the body out), for probes and uptime checkers that use it.
  const get = req.method === 'GET' || req.method === 'HEAD';
  if (pathname === '/healthz' && get) {
    sendJson(res, 200, { status: 'ok' });
  } else if (pathname === '/readyz' && get) {
    sendJson(res, lifecycle.ready ? 200 : 503, { status: lifecycle.state });
  } else if (pathname === '/metrics' && get) {
    const { contentType, text } = await metrics.render();
    res.writeHead(200, { 'content-type': contentType, 'content-length': Buffer.byteLength(text) });
    res.end(text);
  } else if (pathname === '/graphql' && lifecycle.state === 'starting') {
    res.setHeader('retry-after', '1');
    // INTERNAL_SERVER_ERROR: the contract's codes have none for "not yet"; the 503 is what tells a client to retry.
    sendJson(res, 503, errorBody('The gateway is starting; try again shortly', 'INTERNAL_SERVER_ERROR'));
  } else {
    return false;
  }
  return true;
}
