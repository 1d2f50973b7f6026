/** A webhook receiver on 127.0.0.1 for the tests of deliveries: every POST kept, answered as the test says. */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Hit {
  path: string;
  /** Webgauge-Delivery: the same on every attempt of one delivery. */
  id: string;
  event: string;
  signature: string;
  body: string;
  /** What the receiver answered. */
  status: number;
}

export interface Receiver {
  hits: Hit[];
  /** http://127.0.0.1:PORT */
  base: string;
  close(): Promise<void>;
}

/** `answer`: the status for a POST, given its path and the hits before it (default: 200). */
export async function startReceiver(answer: (path: string, id: string, earlier: readonly Hit[]) => number = () => 200): Promise<Receiver> {
  const hits: Hit[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const path = req.url ?? '';
      const id = String(req.headers['webgauge-delivery']);
      const status = answer(path, id, hits);
      hits.push({ path, id, event: String(req.headers['webgauge-event']), signature: String(req.headers['webgauge-signature']), body, status });
      res.writeHead(status).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    hits, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/** Whether the hit's Webgauge-Signature (t=UNIX,v1=HMAC-SHA256 of "t.body") is the secret's. */
export function signedWith(secret: string, hit: Pick<Hit, 'signature' | 'body'>): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(hit.signature);
  return !!m && createHmac('sha256', secret).update(`${m[1]}.${hit.body}`).digest('hex') === m[2];
}
