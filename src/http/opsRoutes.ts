import type { IncomingMessage, ServerResponse } from 'node:http';
import type { GatewayMetrics } from '../observability/metrics';
import type { ServerLifecycle } from './lifecycle';
import { send, sendJson } from './send';

/** `/healthz`, `/readyz` and `/metrics` (HEAD answers as GET). Answers whether it handled the request. */
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
  } else {
    return false;
  }
  return true;
}
