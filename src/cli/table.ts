import pc from 'picocolors';

/**
 * A plain aligned table: columns padded to their widest cell (counted in code points, measured
 * before colouring), the header bold, the last column left unpadded so long text wraps naturally.
 */
export function formatTable(header: string[], rows: string[][]): string {
  const widths = header.map((title, i) => Math.max(width(title), ...rows.map((row) => width(row[i] ?? ''))));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === cells.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - width(cell))))
      .join('  ')
      .trimEnd();
  return [pc.bold(line(header)), ...rows.map(line)].join('\n');
}

function width(text: string): number {
  return [...text].length;
}
