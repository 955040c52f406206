import { DefaultPayloadConverter, type Payload, type PayloadConverter, type SerializationContext } from '@temporalio/common';

const base = new DefaultPayloadConverter();

/**
 * The SDK's default converter, except that a payload it cannot decode (an unknown encoding such as
 * `temporal workflow signal --input-meta encoding=x/y`, or JSON that does not parse) becomes
 * `{ undecodablePayload: "<encoding>: <why>" }` instead of an exception. The default throws inside
 * the workflow sandbox before any handler runs, which fails the workflow task for good: an input
 * leaves the run stuck RUNNING, a signal wedges a healthy run. With this converter the zod schemas
 * see a value they reject: the input fails as InvalidInput, the signal is ignored with a log line,
 * the update is rejected by its validator.
 *
 * Every worker uses it (src/worker/create-worker.ts) and every prebuilt bundle includes it
 * (`bundleOptions()`), so the workflow sandbox decodes with it too.
 */
export class TolerantPayloadConverter implements PayloadConverter {
  toPayload<T>(value: T, context?: SerializationContext): Payload {
    return base.toPayload(value, context);
  }

  fromPayload<T>(payload: Payload, context?: SerializationContext): T {
    try {
      return base.fromPayload<T>(payload, context);
    } catch (err) {
      const encoding = payload.metadata?.encoding ? new TextDecoder().decode(payload.metadata.encoding) : 'no encoding';
      return { undecodablePayload: `${encoding}: ${err instanceof Error ? err.message : String(err)}` } as T;
    }
  }
}

export const payloadConverter = new TolerantPayloadConverter();
