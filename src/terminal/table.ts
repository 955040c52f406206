import pc from 'picocolors';
import { visibleText } from '../common/visible-text';

/** A cell the table styles itself: its text is escaped like any other, then coloured. */
export interface StyledCell {
  text: string;
  style: (text: string) => string;
}

export function styled(text: string, style: (text: string) => string): StyledCell {
  return { text, style };
}

/**
 * A plain aligned table: columns padded to their widest cell (counted in code points, measured
 * before colouring), the header bold, the last column left unpadded so long text wraps naturally.
 * Every cell is shown through `visibleText` (a run's summary, a task's name, a step's detail can
 * hold what a terminal would act on); only a `styled` cell gets colour, the table's own.
 */
export function formatTable(header: string[], rows: Array<Array<string | StyledCell>>): string {
  const shown = rows.map((row) => row.map((cell) => (typeof cell === 'string' ? { text: visibleText(cell), style: (t: string) => t } : { text: visibleText(cell.text), style: cell.style })));
  const head = header.map((title) => ({ text: visibleText(title), style: (t: string) => t }));
  const widths = head.map((title, i) => Math.max(width(title.text), ...shown.map((row) => width(row[i]?.text ?? ''))));
  const line = (cells: Array<{ text: string; style: (t: string) => string }>) =>
    cells
      .map((cell, i) => cell.style(cell.text) + (i === cells.length - 1 ? '' : ' '.repeat((widths[i] ?? 0) - width(cell.text))))
      .join('  ')
      .trimEnd();
  return [pc.bold(line(head)), ...shown.map(line)].join('\n');
}

function width(text: string): number {
  return [...text].length;
}
