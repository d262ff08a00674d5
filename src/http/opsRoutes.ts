import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayMetrics } from '../observability/metrics';
import type { ServerLifecycle } from './lifecycle';
import { errorBody, send, sendJson } from './send';

/**
 * `/healthz`, `/readyz` and `/metrics` (HEAD answers as GET); before the gateway has started, `/graphql` answers 503
 * rather than reach an Apollo server that cannot serve yet. Answers whether it handled the request.
 */
export async function opsRoutes(req: IncomingMessage, res: ServerResponse, pathname: string, options: { lifecycle: ServerLifecycle; metrics: GatewayMetrics }): Promise<boolean> {
  const { lifecycle, metrics } = options;
  const get = req.method === 'GET' || req.method === 'HEAD';
  if (pathname === '/healthz' && get) {
    sendJson(res, 200, { status: 'ok' });
  } else if (pathname === '/readyz' && get) {
    sendJson(res, lifecycle.ready ? 200 : 503, { status: lifecycle.state });
  } else if (pathname === '/metrics' && get) {
    const { contentType, text } = await metrics.render();
    send(res, 200, contentType, text);
  } else if (pathname === '/graphql' && lifecycle.state === 'starting') {
    res.setHeader('retry-after', '1');
    // The contract has no code for "not yet"; the 503 is what tells a client to retry.
    sendJson(res, 503, errorBody('The gateway is starting; try again shortly', 'INTERNAL_SERVER_ERROR'));
  } else {
    return false;
  }
  return true;
}
