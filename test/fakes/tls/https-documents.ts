// Test-only: an HTTPS server on 127.0.0.1 answering fixed documents (an app's client ID metadata
// document, say), with a certificate for `localhost` that this test process — and only it — trusts.
// The safe fetcher still refuses loopback unless the test app's ATELIER_UPLOAD_ALLOWED_HOSTS names it.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';
import { getCACertificates, setDefaultCACertificates } from 'node:tls';

const CERT = readFileSync(new URL('./localhost.crt', import.meta.url), 'utf8');
const KEY = readFileSync(new URL('./localhost.key', import.meta.url), 'utf8');

/** One answer: status, headers, body (a string or a value sent as JSON). */
export interface DocumentAnswer {
  status?: number;
  headers?: Record<string, string>;
  body: unknown;
}

export interface HttpsDocuments {
  /** `https://localhost:<port>`. */
  readonly origin: string;
  /** The `host:port` entry that exempts this server from the public-address policy. */
  readonly allowedHost: string;
  /** Sets what a path answers. */
  set(path: string, answer: DocumentAnswer): void;
  /** How many GETs a path has had. */
  hits(path: string): number;
  close(): Promise<void>;
}

/** Adds the test certificate to the CAs this process's TLS clients trust (the system's stay). */
function trustTestCertificate(): void {
  const trusted = getCACertificates('default');
  if (!trusted.includes(CERT)) setDefaultCACertificates([...trusted, CERT]);
}

export async function startHttpsDocuments(): Promise<HttpsDocuments> {
  trustTestCertificate();
  const answers = new Map<string, DocumentAnswer>();
  const counts = new Map<string, number>();
  const server = createServer({ cert: CERT, key: KEY }, (request, response) => {
    const path = new URL(request.url ?? '/', 'https://localhost').pathname;
    counts.set(path, (counts.get(path) ?? 0) + 1);
    const answer = answers.get(path) ?? { status: 404, body: { error: 'not found' } };
    const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    response.writeHead(answer.status ?? 200, { 'content-type': 'application/json', ...answer.headers });
    response.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no TCP address');
  const allowedHost = `localhost:${address.port}`;
  return {
    origin: `https://${allowedHost}`,
    allowedHost,
    set: (path, answer) => answers.set(path, answer),
    hits: (path) => counts.get(path) ?? 0,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
