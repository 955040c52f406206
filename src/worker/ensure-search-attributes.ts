import { connectionOptions } from '../connection/connection-options';
import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { SEARCH_ATTRIBUTES } from '../common/search-attributes';

const TYPES: Record<string, temporal.api.enums.v1.IndexedValueType> = {
  Keyword: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
  Bool: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_BOOL,
  Int: temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_INT,
};

/**
 * Registers the project's search attributes when the server lacks them (a server we did not
 * start, e.g. another dev server): without them every run's first upsert would fail.
 * Returns the names it added; servers that refuse the operator API are left as they are.
 */
export async function ensureSearchAttributes(address: string, namespace: string): Promise<string[]> {
  const connection = await Connection.connect(connectionOptions(address));
  try {
    const existing = await connection.operatorService.listSearchAttributes({ namespace });
    const missing = Object.entries(SEARCH_ATTRIBUTES).filter(([name]) => !(name in (existing.customAttributes ?? {})));
    if (missing.length === 0) return [];
    await connection.operatorService.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map(([name, type]) => [name, TYPES[type] as temporal.api.enums.v1.IndexedValueType])),
    });
    return missing.map(([name]) => name);
  } finally {
    await connection.close();
  }
}
