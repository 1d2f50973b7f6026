/**
 * An agent-only node's health for machines (`webgauge agent --health-port P`): `GET /healthz` (the process answers)
 * and `GET /readyz` (200 while the agent reaches its server, 503 otherwise), as the service answers them
 * (api/health.ts). No Fastify here: two fixed answers on a port of their own, nothing else.
 */
import { createServer, type Server } from 'node:http';

export interface AgentReadiness {
  /** Why the agent is not ready, or undefined when it is. */
  notReady(): string | undefined;
}

export async function listenForHealth(host: string, port: number, readiness: AgentReadiness): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const send = (status: number, body: object, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
      res.end(req.method === 'HEAD' ? undefined : JSON.stringify(body));
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, { status: 'method not allowed' }, { allow: 'GET, HEAD' });
    if (path === '/healthz') return send(200, { status: 'ok' });
    if (path === '/readyz') {
      const reason = readiness.notReady();
      return reason ? send(503, { status: 'unavailable', reasons: [reason] }, { 'retry-after': '5' }) : send(200, { status: 'ready' });
    }
    return send(404, { status: 'not found' });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const a = server.address();
  const where = a && typeof a === 'object' ? `${a.family === 'IPv6' ? `[${a.address}]` : a.address}:${a.port}` : `${host}:${port}`;
  return { server, url: `http://${where}` };
}
