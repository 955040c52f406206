import { visibleBlock } from '../common/visible-text';

/**
 * Text as the approver must see it: the CLI's own escaping (`src/common/visible-text.ts`), with
 * newlines and tabs kept (the page keeps white space). HTML escaping is the template's.
 */
export const visible = visibleBlock;

/** A tool input as shown for approval: JSON, indented, every string's characters made visible. */
export function visibleJson(value: unknown): string {
  return visible(JSON.stringify(value, null, 2) ?? String(value));
}

export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
