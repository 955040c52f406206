import http from 'node:http';
import type { AddressInfo } from 'node:net';

type AnyValue = { stringValue?: string; intValue?: number | string; boolValue?: boolean; doubleValue?: number; arrayValue?: { values?: AnyValue[] } };

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  name: string;
  service: string;
  attributes: Record<string, unknown>;
}

function plain(value: AnyValue): unknown {
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.boolValue ?? value.doubleValue;
}

function attributes(list: { key: string; value: AnyValue }[] = []): Record<string, unknown> {
  return Object.fromEntries(list.map((a) => [a.key, plain(a.value)]));
}

/** A real OTLP/HTTP receiver speaking the JSON encoding (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`). */
export class OtlpJsonReceiver {
  readonly spans: ReceivedSpan[] = [];

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<OtlpJsonReceiver> {
    const server = http.createServer();
    const receiver = new OtlpJsonReceiver(server);
    server.on('request', (req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        if (req.method !== 'POST' || req.url !== '/v1/traces' || !String(req.headers['content-type']).startsWith('application/json')) {
          res.writeHead(415).end();
          return;
        }
        receiver.take(JSON.parse(body));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get endpoint(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private take(request: { resourceSpans?: { resource?: { attributes?: { key: string; value: AnyValue }[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[] }): void {
    for (const resourceSpans of request.resourceSpans ?? []) {
      const service = String(attributes(resourceSpans.resource?.attributes)['service.name']);
      for (const scope of resourceSpans.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          this.spans.push({
            traceId: String(span.traceId),
            spanId: String(span.spanId),
            parentSpanId: span.parentSpanId ? String(span.parentSpanId) : undefined,
            name: String(span.name),
            service,
            attributes: attributes(span.attributes as { key: string; value: AnyValue }[]),
          });
        }
      }
    }
  }
}
