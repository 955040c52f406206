import type { Payload } from '@temporalio/common';

/** A `temporal.api.common.v1.Payload` in proto3 JSON: bytes fields are base64 strings. */
export interface JsonPayload {
  metadata?: Record<string, string> | null;
  data?: string | null;
}

export function payloadFromJson(json: JsonPayload): Payload {
  if (typeof json !== 'object' || json === null) throw new TypeError('a payload must be an object');
  return {
    metadata: Object.fromEntries(Object.entries(json.metadata ?? {}).map(([k, v]) => [k, base64Bytes(v, `metadata.${k}`)])),
    data: json.data ? base64Bytes(json.data, 'data') : new Uint8Array(),
  };
}

export function payloadToJson(payload: Payload): JsonPayload {
  return {
    metadata: Object.fromEntries(Object.entries(payload.metadata ?? {}).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
    data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64'),
  };
}

function base64Bytes(value: unknown, field: string): Uint8Array {
  if (typeof value !== 'string') throw new TypeError(`payload ${field} must be a base64 string`);
  return Buffer.from(value, 'base64');
}
